/**
 * The kinds of fields the simulated compressors and the updater name (issue 22): a guideline's
 * class word (guideline-reading.ts, through the lexicon) names every field of its class, and a
 * JSON key belongs to a class by its spelling. docs/sim.md lists both.
 */

export const FIELD_CLASSES = [
  'identifiers',
  'credentials',
  'contacts',
  'amounts',
  'dates',
  'names',
  'quantities',
  'urls',
  'pagination',
] as const;

export type FieldClass = (typeof FIELD_CLASSES)[number];

/** Which keys each class holds, tried in this order (`page_index` is pagination, not an id). */
const CLASS_KEYS: [FieldClass, RegExp][] = [
  ['pagination', /^(page_index|page_limit|has_more|total_items|total_pages|next_page|page)$/],
  ['credentials', /token|password|passwd|secret|api_?key|otp|credential/i],
  ['urls', /(^|_)(url|urls|uri|href|link|links)$/i],
  ['identifiers', /^(id|ids|uuid|guid|pk)$|_(id|ids|uuid)$/],
  ['contacts', /email|phone/i],
  ['dates', /(_at|_on)$|date|time(stamp)?$|^(created|modified|updated)$/i],
  ['names', /(^|_)(name|title|names|titles)$|^username$/i],
  [
    'amounts',
    /^(amount|price|total|balance|cost|fee|subtotal|tax|shipping)$|_(amount|price|total|balance|cost|fee)$/i,
  ],
  ['quantities', /count|quantity|size|duration|seconds|bytes|rating|stock/i],
];

/** The class of a JSON key, if it has one. */
export function classOf(key: string): FieldClass | undefined {
  return CLASS_KEYS.find(([, re]) => re.test(key))?.[0];
}

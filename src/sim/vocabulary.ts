import { parseDirectives } from '../guidelines/index.js';
import { seededRandom } from '../seeded-random.js';
import { containsToken, shortHash } from './text.js';

/**
 * How the simulated compressors read a guideline (issue 22, ARCHITECTURE §6): a small documented
 * vocabulary of field classes and actions, applied sentence by sentence. Prose outside the
 * vocabulary has no effect. The machine lines `KEEP:` / `DROP:` / `MAX_ITEMS:` still work.
 *
 * Field classes (a class word in a sentence names every field of the class; docs/sim.md lists the
 * words):
 *
 * | class       | fields (JSON keys)                                   | words                          |
 * |-------------|------------------------------------------------------|--------------------------------|
 * | identifiers | `id`, `*_id`, `uuid`                                 | id(s), identifier(s), key(s)   |
 * | credentials | `*token*`, `*password*`, `secret`, `otp`             | credential(s), token(s), password(s) |
 * | contacts    | `*email*`, `*phone*`                                 | email(s), phone number(s), contact details |
 * | amounts     | `amount`, `price`, `total`, `balance`, `cost`, `fee` | amount(s), price(s), money, cost(s), total(s), balance(s) |
 * | dates       | `*_at`, `*date*`, `*time*`                           | date(s), timestamp(s), time(s) |
 * | names       | `name`, `*_name`, `title`                            | name(s), title(s)              |
 * | quantities  | `*count*`, `quantity`, `*size*`, `duration*`, `rating` | count(s), quantity, size(s), duration(s), rating(s) |
 * | urls        | `*url*`, `*link*`, `href`                            | url(s), link(s)                |
 * | pagination  | `page_index`, `page_limit`, `has_more`, `total_items` | pagination, paging, page index |
 *
 * A field can also be named by its key in backticks (`` `play_count` ``) or as a bare key with an
 * underscore (`created_at`). Actions: keep / preserve / retain / include / copy / never drop …
 * (keep); omit / drop / remove / leave out / discard / exclude (drop); shorten / truncate
 * (shorten long texts; "be concise" / "brief" / "succinct" anywhere also shortens long texts and
 * keeps, of a list, the records that bear on the job; "shorten long lists" also cuts a list none of
 * whose records does, relevance.ts); "at most N items" (cut every list); "every item of a list"
 * undoes both cuts. For history summaries, "progress" /
 * "what has been done" / "completed steps" asks for a progress statement and "goal" / "what is
 * left to do" for the task's goal, and "details that no longer matter" drops what was read for a
 * finished part of the task. A field both kept and dropped is kept.
 */

export type FieldClass =
  | 'identifiers'
  | 'credentials'
  | 'contacts'
  | 'amounts'
  | 'dates'
  | 'names'
  | 'quantities'
  | 'urls'
  | 'pagination';

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

const CLASS_WORDS: [FieldClass, RegExp][] = [
  ['identifiers', /\b(ids?|identifiers?|keys?)\b/],
  ['credentials', /\b(credentials?|tokens?|passwords?|secrets?)\b/],
  ['contacts', /\b(e-?mails?|email addresse?s?|phone numbers?|contact details)\b/],
  ['amounts', /\b(amounts?|prices?|money|costs?|totals?|balances?|dollars?)\b/],
  ['dates', /\b(dates?|timestamps?|times?)\b/],
  ['names', /\b(names?|titles?)\b/],
  ['quantities', /\b(counts?|quantit(y|ies)|sizes?|durations?|ratings?)\b/],
  ['urls', /\b(urls?|links?)\b/],
  ['pagination', /\b(pagination|paging|page (index|state|numbers?))\b/],
];

const NEGATED_DROP =
  /\b(never|do not|don't|must not|without|not)\b[^.;]*\b(drop|omit|remove|lose|leave out|discard|shorten|paraphrase|summari[sz]e|cut)\b/;
const DROP = /\b(omit|drop|remove|leave out|leaves? out|discard|exclude|strip|delete|skip)\b/;
const SHORTEN = /\b(shorten|truncate|abbreviate|trim)\b/;
const STALE =
  /\b(no longer (matter|matters|needed|relevant|useful)|(outdated|stale|obsolete) (details|facts|information))\b/;
/**
 * Asks for values as they are: "faithful to the original", "exact values", "verbatim",
 * "character for character", "never paraphrase".
 */
const EXACT =
  /\b(exact|exactly|verbatim|faithful|faithfully|character for character|word for word|as (?:it|they) appears?|unchanged)\b|\b(?:never|not|don't|do not)\b[^.;]*\bparaphras/;
const CONCISE = /\b(concise|concisely|brief|briefly|succinct|succinctly)\b/;
const KEEP = /\b(keep|keeps|preserve|retain|include|copy|carry|record|always)\b/;
const MAX_ITEMS =
  /\b(?:at most|no more than|up to|only the first|the first)\s+(\d+)\s+(?:items|entries|results|records|rows|elements)\b/;
const PROGRESS =
  /\b(progress|what has been done|what (?:was|is) done|completed (?:steps|actions|work)|done so far|steps? (?:taken|completed))\b/;
const GOAL =
  /\b(goal|what is left|left to do|remaining work|pending|user context|what the user asked)\b/;

/** "Omit `genre` unless the task (explicitly) asks about it / needs it / mentions it". */
const UNLESS_ASKED = /\bunless\b[^.;]*\b(task|user|question)\b/;

/** What a shorten sentence names: lists, or texts (records, descriptions, bodies). */
const LISTS = /\b(lists?|entries|results|rows)\b/;
const TEXTS = /\b(texts?|records?|descriptions?|bodies|body|messages?|outputs?|fields?)\b/;

const ALL_ITEMS =
  /\b(every|all) (items?|entries|entry) of (a|each|every|the) lists?\b|\bnever cut lists\b/;

export type Action = 'keep' | 'drop' | 'shorten';

/** What a guideline asks of a compressor, as the sim reads it. */
export type GuidelineReading = {
  keepFields: Set<string>;
  dropFields: Set<string>;
  shortenFields: Set<string>;
  keepClasses: Set<FieldClass>;
  dropClasses: Set<FieldClass>;
  shortenClasses: Set<FieldClass>;
  /** A shorten instruction with no target: long free texts are cut. */
  shortenTexts: boolean;
  /**
   * The guideline asks for values as they are (`EXACT`): a concise compressor then copies a long
   * opaque string it keeps on its own judgement whole instead of abbreviating it (fields.ts).
   */
  exact: boolean;
  /**
   * "Shorten long lists" (or "be concise"): of a list of records, those that bear on the job
   * stay (relevance.ts `bearing`). "Keep every item of a list" undoes it.
   */
  shortenLists: boolean;
  /**
   * "Shorten long lists" by name (not only "be concise"): a list none of whose records bears on
   * the job is cut too (relevance.ts `bearing`).
   */
  cutLists: boolean;
  maxItems: number | null;
  /**
   * "Keep every item of a list; never cut lists short": lists stay whole, and a summary over its
   * length gives up other material before the items of a list (compressor.ts `budgetTiers`).
   */
  allItems: boolean;
  progress: boolean;
  goal: boolean;
  /**
   * "Leave out details that no longer matter": what the agent read for a part of the task it has
   * finished (it acted on the data and moved on to another app) goes from a summary.
   */
  stale: boolean;
  /**
   * Fields a drop sentence leaves out "unless the task asks about them": dropped only where the
   * job at hand gives no sign of them (fields.ts `askedFields`).
   */
  unlessAsked: Set<string>;
};

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?;])\s+|\r?\n+|,\s+and\s+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Field keys a sentence names: in backticks or quotes, or bare keys with an underscore. */
function namedFields(sentence: string): string[] {
  const out = new Set<string>();
  for (const m of sentence.matchAll(/[`'"]([A-Za-z_][\w.]*)[`'"]/g)) out.add(m[1]!);
  for (const m of sentence.matchAll(/\b([a-z]+(?:_[a-z0-9]+)+)\b/g)) out.add(m[1]!);
  return [...out];
}

function emptyReading(): GuidelineReading {
  return {
    keepFields: new Set(),
    dropFields: new Set(),
    shortenFields: new Set(),
    keepClasses: new Set(),
    dropClasses: new Set(),
    shortenClasses: new Set(),
    shortenTexts: false,
    exact: false,
    shortenLists: false,
    cutLists: false,
    maxItems: null,
    allItems: false,
    progress: false,
    goal: false,
    stale: false,
    unlessAsked: new Set(),
  };
}

/**
 * A shorten sentence that names no field or class: "Shorten long lists and verbose records" asks
 * for shorter lists (relevance.ts) and shorter long texts; one that names nothing, for shorter texts.
 */
function readShorten(r: GuidelineReading, prose: string): void {
  const lists = LISTS.test(prose);
  if (lists) {
    r.shortenLists = true;
    r.cutLists = true;
  }
  if (!lists || TEXTS.test(prose)) r.shortenTexts = true;
}

/** Reads a guideline (or any instruction text) through the vocabulary. */
export function readGuideline(text: string): GuidelineReading {
  const r = emptyReading();
  const d = parseDirectives(text);
  for (const f of d.keep) r.keepFields.add(f);
  for (const f of d.drop) r.dropFields.add(f);
  r.maxItems = d.maxItems;
  // The action of the clause before, when it ended in `;`: "Never drop these fields; the agent
  // needs their exact values: `a`, `b`." names, after the `;`, what the clause before it keeps.
  let carried: Action | undefined;
  for (const raw of sentences(text)) {
    const inherited = carried;
    carried = undefined;
    if (/^[-*+\s]*(KEEP|DROP|MAX_ITEMS)\s*:/i.test(raw)) continue;
    const s = raw.toLowerCase();
    // "Be concise": a compressor told to be brief does not copy long free texts whole.
    if (CONCISE.test(s) && !/\bnot\b[^.;]*\bconcise\b/.test(s)) {
      r.shortenTexts = true;
      r.shortenLists = true;
    }
    if (STALE.test(s)) r.stale = true;
    if (EXACT.test(s)) r.exact = true;
    const max = MAX_ITEMS.exec(s);
    if (max) {
      r.maxItems = Number(max[1]);
      r.allItems = false;
    }
    // A section heading in a prompt (`CURRENT_STATE: credentials, identifiers, …`) asks for what
    // it lists.
    const heading = /^[A-Z][A-Z_]{3,}:\s/.test(raw);
    const own: Action | undefined = heading
      ? 'keep'
      : NEGATED_DROP.test(s)
        ? 'keep'
        : DROP.test(s)
          ? 'drop'
          : SHORTEN.test(s)
            ? 'shorten'
            : KEEP.test(s)
              ? 'keep'
              : undefined;
    const action = own ?? inherited;
    if (raw.endsWith(';')) carried = action;
    if (action === undefined) continue;
    // Class words count in the prose, not inside a quoted field name (`id`, `created_at`). A
    // clause that only carries the action before its `;` names fields, not kinds: "Drop `type`;
    // they only cost tokens." gives a reason, it does not ask to drop costs and tokens.
    const prose = s.replace(/[`'"][A-Za-z_][\w.]*[`'"]|\b[a-z]+(?:_[a-z0-9]+)+\b/g, ' ');
    const classes =
      own === undefined ? [] : CLASS_WORDS.filter(([, re]) => re.test(prose)).map(([c]) => c);
    const fields = namedFields(raw);
    if (action === 'keep') {
      if (ALL_ITEMS.test(s)) {
        r.maxItems = null;
        r.allItems = true;
      }
      if (PROGRESS.test(s)) r.progress = true;
      if (GOAL.test(s)) r.goal = true;
    }
    for (const c of classes) {
      (action === 'keep'
        ? r.keepClasses
        : action === 'drop'
          ? r.dropClasses
          : r.shortenClasses
      ).add(c);
    }
    for (const f of fields) {
      (action === 'keep' ? r.keepFields : action === 'drop' ? r.dropFields : r.shortenFields).add(
        f,
      );
    }
    if (action === 'drop' && UNLESS_ASKED.test(s)) for (const f of fields) r.unlessAsked.add(f);
    if (action === 'shorten' && classes.length === 0 && fields.length === 0) readShorten(r, prose);
  }
  // "Keep every item of a list" wins over a shortening, wherever it stands.
  if (r.allItems) {
    r.shortenLists = false;
    r.cutLists = false;
  }
  return r;
}

/** The class of a JSON key, if it has one. */
export function classOf(key: string): FieldClass | undefined {
  return CLASS_KEYS.find(([, re]) => re.test(key))?.[0];
}

export type Verdict = 'keep' | 'drop' | 'shorten' | 'default';

/** What the guideline says about a key: named fields first, then its class; keep wins. */
export function verdictFor(key: string, r: GuidelineReading): Verdict {
  const cls = classOf(key);
  if (r.keepFields.has(key) || (cls !== undefined && r.keepClasses.has(cls))) return 'keep';
  if (r.dropFields.has(key) || (cls !== undefined && r.dropClasses.has(cls))) return 'drop';
  if (r.shortenFields.has(key) || (cls !== undefined && r.shortenClasses.has(cls)))
    return 'shorten';
  return 'default';
}

/**
 * The generic default for a field the guideline does not name (the untrained v0 guideline says
 * only "keep what matters for the task"): kept with a probability that depends only on what the
 * prompt shows. A field whose value the prompt shows elsewhere (the task, the agent's recent
 * calls) is clearly relevant; one whose key it shows probably is; about any other the compressor
 * has no evidence either way.
 *
 * The draw is a judgement, not a coin per prompt: a model asked the same thing about the same
 * kind of record is consistent. It is seeded by the compressor, the task, the call whose result
 * the record is (its kind: `music.show_song_library`) and the key (`judgementSeed`), so every
 * compression of a rollout judges `play_count` of the library's songs the same way, whatever
 * else the prompt says (the agent's reasoning, other results, the guideline's other sentences);
 * only the evidence moves it. A field the agent says it lacks ("the `id` of items item 16 is not
 * in my context; re-fetching it") is kept: the compressor reads the agent's request as it reads
 * its guideline.
 */
export const KEEP_IF_VALUE_SHOWN = 0.9;
export const KEEP_IF_KEY_SHOWN = 0.75;
export const KEEP_WITHOUT_EVIDENCE = 0.5;

/**
 * Words in a prompt that show a field class matters, the way a reader relates "the newest note"
 * to `created_at` or "how much money" to `amount` (the relevance judgement of a real compressor).
 */
const CLASS_EVIDENCE: [FieldClass, RegExp][] = [
  [
    'dates',
    /\b(newest|oldest|latest|earliest|most recent(ly)?|recently|created|modified|added|since|date|month|year)\b/i,
  ],
  [
    'amounts',
    /\$\d|\b(money|dollars?|paid|pay|costs?|prices?|cheapest|expensive|total|sum|balance|amounts?)\b/i,
  ],
  [
    'quantities',
    /\b(largest|smallest|biggest|longest|shortest|most|least|how many|count|sizes?|bytes|played|plays)\b/i,
  ],
  ['names', /\b(called|named|titled|titles?|names?)\b|"[^"]+"/],
  // To act on a record (pay it, delete it, add it) the agent needs its handle.
  [
    'identifiers',
    /_id\b|"id"|\b(pay|approve|decline|deny|delete|remove|pin|text|send|add|return|move|update|save|play)\b/i,
  ],
  ['credentials', /access_token|password/],
  ['contacts', /\b(e-?mail|phone|text|contacts?)\b/i],
];

/** `\bword`, case-insensitive, compiled once per word of a key (issue #28); at most 4096 kept. */
const wordStarts = new Map<string, RegExp>();
function wordStart(word: string): RegExp {
  let re = wordStarts.get(word);
  if (re === undefined) {
    re = new RegExp(`\\b${word}`, 'i');
    if (wordStarts.size >= 4096) wordStarts.clear();
    wordStarts.set(word, re);
  }
  return re;
}

/**
 * keyShown's answers by evidence, then key (issue #28): a compressor asks about the same keys for
 * every item of a list, against the one evidence text of its call. The last 8 evidence texts kept.
 */
const shownByEvidence = new Map<string, Map<string, boolean>>();

function keyShownMemo(key: string, evidence: string): boolean {
  let byKey = shownByEvidence.get(evidence);
  if (byKey === undefined) {
    byKey = new Map();
    shownByEvidence.set(evidence, byKey);
    if (shownByEvidence.size > 8) shownByEvidence.delete(shownByEvidence.keys().next().value!);
  }
  let shown = byKey.get(key);
  if (shown === undefined) {
    shown = keyShown(key, evidence);
    byKey.set(key, shown);
  }
  return shown;
}

/**
 * The seed of a compressor's default judgements about the records of one call's result
 * (`defaultKeeps`): which compressor, the task it serves and the call. Nothing else of the
 * prompt enters it.
 */
export function judgementSeed(compressor: 'obs' | 'hist', task: string, call: string): string {
  return shortHash(`${compressor}\u0000${task.replace(/\s+/g, ' ').trim()}\u0000${call}`);
}

/**
 * The judgement about a key: the first number of the PRNG seeded by the judgement seed and the
 * key, remembered (issue #28; every item of a list asks about the same keys). At most 16,384 kept.
 */
const draws = new Map<string, number>();

function defaultDraw(judgement: string, key: string): number {
  const id = `${judgement}\u0000${key}`;
  let draw = draws.get(id);
  if (draw === undefined) {
    draw = seededRandom('sim-compressor', judgement, key)();
    if (draws.size >= 16_384) draws.clear();
    draws.set(id, draw);
  }
  return draw;
}

/** Whether the prompt shows the key (or a word of it, `play` of `play_count`) or its class. */
function keyShown(key: string, evidence: string): boolean {
  if (containsToken(evidence, key)) return true;
  const words = key.split('_').filter((w) => w.length >= 4);
  if (words.some((w) => wordStart(w).test(evidence))) return true;
  const cls = classOf(key);
  return CLASS_EVIDENCE.some(([c, re]) => c === cls && re.test(evidence));
}

export function defaultKeeps(
  key: string,
  value: string,
  evidence: string,
  judgement: string,
  requested = false,
): boolean {
  if (requested) return true;
  const p =
    value.length >= 2 && containsToken(evidence, value)
      ? KEEP_IF_VALUE_SHOWN
      : keyShownMemo(key, evidence)
        ? KEEP_IF_KEY_SHOWN
        : KEEP_WITHOUT_EVIDENCE;
  return defaultDraw(judgement, key) < p;
}

/** Longest free text kept whole when the guideline asks to shorten texts. */
export const SHORT_TEXT_CHARS = 80;

/** Words too common to show that a sentence bears on the task. */
const STOPWORDS = new Set(
  'about above after again their there these those which while would could should other every where before being under until'.split(
    ' ',
  ),
);

/** Content words (five letters or more) of a text, lower case. */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[a-z]{5,}/g)) {
    if (!STOPWORDS.has(m[0])) out.add(m[0]);
  }
  return out;
}

let lastEvidence: { text: string; words: Set<string> } | undefined;
export function evidenceWords(evidence: string): Set<string> {
  if (lastEvidence?.text !== evidence)
    lastEvidence = { text: evidence, words: contentWords(evidence) };
  return lastEvidence.words;
}

/**
 * A long free text shortened the way a reader shortens it (issue 22): the sentences that share a
 * content word with what the prompt shows besides it (the task, the agent's calls) stay, the
 * rest goes; a text with no such sentence keeps its opening. So an email whose body says "my new
 * phone number is …" keeps that sentence when the task is about a new phone number.
 */
export function shorten(value: string, evidence = ''): string {
  if (value.length <= SHORT_TEXT_CHARS) return value;
  const words = evidenceWords(evidence);
  const kept = value
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && [...contentWords(s)].some((w) => words.has(w)));
  if (kept.length > 0) return kept.join(' … ');
  return `${value.slice(0, SHORT_TEXT_CHARS - 1)}…`;
}

import { parseDirectives, stripDirectives, GUIDELINE_MAX_CHARS } from '../guidelines/index.js';
import {
  CompressionAnalysisSchema,
  type CompressionAnalysis,
  UtilityAnalysisSchema,
  type UtilityAnalysis,
  type GuidelineUpdate,
} from '../domain/index.js';
import { seededRandom, type Random } from '../seeded-random.js';
import { section, shortHash, tryParseJson } from './text.js';
import { classOf, type FieldClass } from './field-classes.js';
import { readGuideline, verdictFor } from './guideline-reading.js';

/**
 * The simulated updater (ARCHITECTURE §6, issue 22): turns the analyses it was sent into prose
 * the sim compressors read (the lexicon of guideline-reading.ts, never a machine grammar). Utility
 * analyses add a sentence keeping the fields found missing, one keeping the other fields of their
 * kinds (an LLM generalizes from examples; a candidate past the first two does so on a coin), and every list item when lists were cut (by a
 * list limit or by a summary); compression analyses add one leaving out fields kept but never
 * used (never a field the guideline keeps or an analysis needed). Each candidate reads its own sample of analyses, so
 * different samples give different guidelines; on top, a seeded coin per candidate leaves out
 * some of the less-named fields, as a sampling model would.
 */

const FIELD = /^[A-Za-z_$][\w$.-]*$/;

const KEEP_SENTENCES = [
  'Later steps need these fields, so keep them exactly as they appear: {fields}.',
  'Never drop or paraphrase these fields; the agent needs their exact values in later steps: {fields}.',
  'Keep these fields for every item that has them, since the agent matches, compares or copies them: {fields}.',
  'Preserve {fields} verbatim; the agent had to re-fetch or guess them when they were missing.',
  'Always keep {fields} character for character, for every item.',
];

const ALL_ITEMS = 'Keep every item of a list; never cut lists short.';

/**
 * How an updater names the kind of field its examples are (issue 22): a model that read "the
 * agent lacked `play_count` to find the most played song" writes a rule for counts, not for one
 * key, so the guideline carries over to tasks that compare on `size_bytes`. The words are those
 * the lexicon reads (guideline-reading.ts).
 */
const CLASS_PHRASE: Record<FieldClass, string> = {
  identifiers: 'ids',
  credentials: 'tokens and passwords',
  contacts: 'emails and phone numbers',
  amounts: 'amounts and prices',
  dates: 'dates',
  names: 'names and titles',
  quantities: 'counts, sizes and durations',
  urls: 'urls',
  pagination: 'pagination',
};

function generalize(fields: readonly string[]): string | null {
  const classes = [...new Set(fields.map(classOf).filter((c) => c !== undefined))];
  if (classes.length === 0) return null;
  const phrases = classes.map((c) => CLASS_PHRASE[c]);
  return `Keep the other ${phrases.join(', ')} of every record too.`;
}

const DROP_SENTENCES = [
  'Leave out fields the agent never uses later: {fields}.',
  'To keep the context short, remove these fields entirely: {fields}.',
  'These fields were never needed by the next steps; remove them: {fields}.',
  'Drop {fields}; they only cost tokens.',
  'Omit {fields} unless the task explicitly asks about them.',
];

type Analyses = { utility: UtilityAnalysis[]; compression: CompressionAnalysis[] };

function readAnalyses(text: string): Analyses {
  const out: Analyses = { utility: [], compression: [] };
  const json = tryParseJson(text);
  const items = Array.isArray(json) ? json : json === undefined ? [] : [json];
  for (const item of items) {
    // An analysis may come wrapped in a record ({task, analysis}); take the analysis.
    const candidates =
      item !== null && typeof item === 'object' && 'analysis' in item
        ? [(item as { analysis: unknown }).analysis, item]
        : [item];
    for (const c of candidates) {
      const ut = UtilityAnalysisSchema.safeParse(c);
      if (ut.success) {
        out.utility.push(ut.data);
        break;
      }
      const co = CompressionAnalysisSchema.safeParse(c);
      if (co.success) {
        out.compression.push(co.data);
        break;
      }
    }
  }
  return out;
}

/** Fields by how many analyses name them (most first, then first mention). */
function ranked(lists: readonly string[][], exclude: ReadonlySet<string>): string[] {
  const counts = new Map<string, number>();
  for (const list of lists) {
    for (const f of new Set(list)) {
      if (FIELD.test(f) && !exclude.has(f)) counts.set(f, (counts.get(f) ?? 0) + 1);
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([f]) => f);
}

/**
 * Candidates 0 and 1 take every field (callers number candidates from 0 or from 1, and either
 * way one candidate takes the analyses at their word); the others keep the top field and each
 * other one with a seeded coin. Odd candidates list fields alphabetically, even ones by rank.
 */
function choose(fields: readonly string[], candidate: number, random: Random): string[] {
  const order = (list: string[]) => (candidate % 2 === 1 ? list.sort() : list);
  if (candidate <= 1 || fields.length <= 1) return order([...fields]);
  const [top, ...rest] = fields;
  return order([top!, ...rest.filter(() => random() < 0.6)]);
}

/**
 * Whether a candidate writes the general rule beside the fields it names ("Keep the other dates
 * of every record too"): a sampled model sometimes generalizes from its examples and sometimes
 * keeps to them, so candidates read from the same few analyses still differ. Candidates 0 and 1
 * (the ones that take the analyses at their word, `choose`) do; the others toss a fair coin.
 */
function generalizes(candidate: number, random: Random): boolean {
  return candidate <= 1 || random() < 0.5;
}

function sentence(templates: readonly string[], candidate: number, fields: readonly string[]) {
  const template = templates[candidate % templates.length]!;
  return template.replace('{fields}', fields.map((f) => `\`${f}\``).join(', '));
}

/**
 * The current guideline's prose (machine lines of older versions, which only a sim read, are
 * left out) and the new sentence; paragraphs added by earlier rounds are dropped oldest first
 * while it is over the limit.
 */
function compose(guideline: string, prose: string | null): string {
  const paragraphs = stripDirectives(guideline)
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== '');
  // An older guideline's machine lines become the prose that says the same.
  const old = parseDirectives(guideline);
  const quote = (fields: string[]) => fields.map((f) => `\`${f}\``).join(', ');
  if (old.keep.length > 0) paragraphs.push(`Keep ${quote(old.keep)} exactly as they appear.`);
  if (old.drop.length > 0) paragraphs.push(`Leave out ${quote(old.drop)}.`);
  if (old.maxItems !== null) paragraphs.push(`Keep at most ${old.maxItems} items of any list.`);
  if (prose !== null && !paragraphs.includes(prose)) paragraphs.push(prose);
  let text = paragraphs.join('\n\n');
  while (text.length > GUIDELINE_MAX_CHARS && paragraphs.length > 2) {
    paragraphs.splice(1, 1);
    text = paragraphs.join('\n\n');
  }
  if (text.length <= GUIDELINE_MAX_CHARS) return text;
  const cut = text.slice(0, GUIDELINE_MAX_CHARS);
  return cut.slice(0, Math.max(1, cut.lastIndexOf(' '))).trimEnd();
}

/**
 * Fields the CO analyses found unused that may go, as the CO updater prompt asks: long unused
 * material (the analyses' unused_content) on one run's evidence; a short field (a date, an
 * amount, a name costs a few tokens and another task may compare on it) only when more than one
 * run left it unused; never a field the guideline keeps or of a needed field's kind.
 */
function droppable(
  compression: readonly CompressionAnalysis[],
  needed: ReadonlySet<string>,
  kept: (f: string) => boolean,
): string[] {
  const long = new Set(
    compression.flatMap((a) =>
      a.unused_content.flatMap((c) => [...c.matchAll(/`([A-Za-z_][\w.]*)`/g)].map((m) => m[1]!)),
    ),
  );
  const unusedIn = new Map<string, number>();
  for (const a of compression) {
    for (const f of new Set(a.unused_fields)) unusedIn.set(f, (unusedIn.get(f) ?? 0) + 1);
  }
  // "Never ask to leave out anything an analysis lists as needed", read as an LLM reads it: not
  // the other fields of a needed field's kind either (`amount` was compared on: `total` stays).
  const neededKinds = new Set([...needed].map(classOf).filter((c) => c !== undefined));
  const ofNeededKind = (f: string) => {
    const c = classOf(f);
    return c !== undefined && neededKinds.has(c);
  };
  return ranked(
    compression.map((a) => a.unused_fields),
    needed,
  ).filter((f) => !kept(f) && !ofNeededKind(f) && (long.has(f) || (unusedIn.get(f) ?? 0) >= 2));
}

export type SimUpdaterInput = { seed: number; user: string };

/** The updater's answer for a prompt rendered from src/prompts/updater-*.user.txt. */
export function simGuidelineUpdate({ seed, user }: SimUpdaterInput): GuidelineUpdate {
  const guideline = section(user, 'current_guideline') ?? '';
  const analysesText = section(user, 'analyses') ?? '[]';
  const kind = /^Compressor: (\w+)/m.exec(user)?.[1] ?? 'obs';
  const candidate = Number(/^Candidate: (\d+)/m.exec(user)?.[1] ?? 0);
  const random = seededRandom(
    seed,
    'updater',
    kind,
    candidate,
    shortHash(guideline + analysesText),
  );
  const analyses = readAnalyses(analysesText);
  const current = readGuideline(guideline);
  const kept = (f: string) => verdictFor(f, current) === 'keep';

  const missing = ranked(
    analyses.utility.map((a) => [
      ...a.missing_facts.map((f) => f.field),
      ...a.distorted_facts.map((f) => f.field),
    ]),
    new Set(),
  );
  const needed = new Set([...missing, ...analyses.compression.flatMap((a) => a.needed_fields)]);
  const unused = droppable(analyses.compression, needed, kept);

  // "List items were cut": a list cut to N items, or a summary that gave up items of a list to stay
  // short; either way the guideline asks for every item, unless it already does.
  const allItems = missing.includes('items') && (current.maxItems !== null || !current.allItems);
  const keep = choose(
    missing.filter((f) => f !== 'items'),
    candidate,
    random,
  ).filter((f) => !kept(f));
  const drop = choose(unused, candidate, random).filter((f) => verdictFor(f, current) !== 'drop');
  const total = analyses.utility.length + analyses.compression.length;

  if (keep.length === 0 && drop.length === 0 && !allItems) {
    return {
      guideline: compose(guideline, null),
      rationale:
        total === 0
          ? 'No usable analysis was given; the guideline is unchanged.'
          : `Every field named by the ${count(total, 'analysis', 'analyses')} is already covered; the guideline is unchanged.`,
    };
  }

  const prose = [
    allItems ? ALL_ITEMS : null,
    keep.length > 0 ? sentence(KEEP_SENTENCES, candidate, keep) : null,
    keep.length > 0 && generalizes(candidate, random) ? generalize(keep) : null,
    drop.length > 0 ? sentence(DROP_SENTENCES, candidate, drop) : null,
  ]
    .filter((s): s is string => s !== null)
    .join(' ');
  const reasons: string[] = [];
  if (keep.length > 0 || allItems) {
    reasons.push(
      `${count(analyses.utility.length, 'utility analysis', 'utility analyses')} found facts ` +
        `missing after compression; candidate ${candidate} keeps ${keep.join(', ') || 'every list item'}.`,
    );
  }
  if (drop.length > 0) {
    reasons.push(
      `${count(analyses.compression.length, 'compression analysis', 'compression analyses')} ` +
        `found kept fields that were never used; candidate ${candidate} leaves out ` +
        `${drop.join(', ')} (fields needed anywhere stay).`,
    );
  }
  return { guideline: compose(guideline, prose), rationale: reasons.join(' ') };
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

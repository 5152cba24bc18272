import {
  mergeDirectives,
  parseDirectives,
  stripDirectives,
  withDirectives,
  type Directives,
} from '../guidelines/directives.js';
import {
  CompressionAnalysisSchema,
  type CompressionAnalysis,
} from '../domain/compression-analysis.js';
import { UtilityAnalysisSchema, type UtilityAnalysis } from '../domain/utility-analysis.js';
import { type GuidelineUpdate } from '../domain/guideline-update.js';
import { GUIDELINE_MAX_CHARS } from '../guidelines/schema.js';
import { seededRandom, type Random } from '../seeded-random.js';
import { section, shortHash, tryParseJson } from './text.js';

/**
 * The simulated updater (ARCHITECTURE §6): turns analyses into guideline edits. Utility-phase
 * analyses add `KEEP:` fields (the facts found missing), compression-phase analyses add `DROP:`
 * fields (kept but never used, and never a needed or KEEP'd field), each with a sentence of
 * prose. Candidates differ deterministically by their index: a different subset and order of
 * the fields and a different sentence.
 */

const FIELD = /^[A-Za-z_$][\w$.-]*$/;

const KEEP_SENTENCES = [
  'Later API calls copy these fields verbatim, so keep them exactly as they appear: {fields}.',
  'Never drop or paraphrase these fields; the agent needs their exact values in later steps: {fields}.',
  'Identifiers, credentials and amounts that later steps reuse must survive compression, in particular {fields}.',
  'Before leaving anything out, make sure it is not one of these fields, which the task depends on: {fields}.',
  'Copy these fields character for character, for every item that has them: {fields}.',
];

const DROP_SENTENCES = [
  'Leave out fields the agent never uses later: {fields}.',
  'To keep the context short, remove these fields entirely: {fields}.',
  'These fields were never needed by the next steps and can go: {fields}.',
  'Do not carry over {fields}; they only cost tokens.',
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

function sentence(templates: readonly string[], candidate: number, fields: readonly string[]) {
  const template = templates[candidate % templates.length]!;
  return template.replace('{fields}', fields.map((f) => `\`${f}\``).join(', '));
}

/**
 * The current guideline's prose, the new sentence, and the merged directive block; prose
 * paragraphs added by earlier rounds are dropped oldest first while it is over the limit.
 */
function compose(guideline: string, prose: string | null, d: Directives): string {
  const paragraphs = stripDirectives(guideline)
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== '');
  if (prose !== null && !paragraphs.includes(prose)) paragraphs.push(prose);
  let text = withDirectives(paragraphs.join('\n\n'), d);
  while (text.length > GUIDELINE_MAX_CHARS && paragraphs.length > 2) {
    paragraphs.splice(1, 1);
    text = withDirectives(paragraphs.join('\n\n'), d);
  }
  if (text.length <= GUIDELINE_MAX_CHARS) return text;
  // Still too long: the directive block wins, the prose is cut at a word boundary.
  const block = withDirectives('', d);
  const room = GUIDELINE_MAX_CHARS - block.length - 2;
  if (room < 1) return block.slice(0, block.lastIndexOf(',', GUIDELINE_MAX_CHARS));
  const cut = paragraphs.join('\n\n').slice(0, room);
  return withDirectives(cut.slice(0, Math.max(1, cut.lastIndexOf(' '))).trimEnd(), d);
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
  const current = parseDirectives(guideline);

  const missing = ranked(
    analyses.utility.map((a) => [
      ...a.missing_facts.map((f) => f.field),
      ...a.distorted_facts.map((f) => f.field),
    ]),
    new Set(),
  );
  const needed = new Set([
    ...current.keep,
    ...missing,
    ...analyses.compression.flatMap((a) => a.needed_fields),
  ]);
  const unused = ranked(
    analyses.compression.map((a) => a.unused_fields),
    needed,
  );

  const keep = choose(missing, candidate, random).filter((f) => !current.keep.includes(f));
  const drop = choose(unused, candidate, random).filter((f) => !current.drop.includes(f));
  const total = analyses.utility.length + analyses.compression.length;

  if (keep.length === 0 && drop.length === 0) {
    return {
      guideline: compose(guideline, null, current),
      rationale:
        total === 0
          ? 'No usable analysis was given; the guideline is unchanged.'
          : `Every field named by the ${count(total, 'analysis', 'analyses')} is already covered; the guideline is unchanged.`,
    };
  }

  const prose = [
    keep.length > 0 ? sentence(KEEP_SENTENCES, candidate, keep) : null,
    drop.length > 0 ? sentence(DROP_SENTENCES, candidate, drop) : null,
  ]
    .filter((s): s is string => s !== null)
    .join(' ');
  const next = mergeDirectives(current, { keep, drop });
  const reasons: string[] = [];
  if (keep.length > 0) {
    reasons.push(
      `${count(analyses.utility.length, 'utility analysis', 'utility analyses')} found facts ` +
        `missing after compression; ` +
        `candidate ${candidate} adds KEEP: ${keep.join(', ')}.`,
    );
  }
  if (drop.length > 0) {
    reasons.push(
      `${count(analyses.compression.length, 'compression analysis', 'compression analyses')} ` +
        `found kept fields that were never used; ` +
        `candidate ${candidate} adds DROP: ${drop.join(', ')} (fields needed anywhere stay).`,
    );
  }
  return { guideline: compose(guideline, prose, next), rationale: reasons.join(' ') };
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

import { seededRandom } from '../seeded-random.js';
import type { CompressorMemo } from './compressor-memo.js';
import { classOf, type FieldClass } from './field-classes.js';
import { containsToken, shortHash } from './text.js';

/**
 * What a simulated compressor keeps of a field its guideline does not name (issue 22), and how it
 * shortens a long text: judgements from what the prompt shows. How it reads the guideline itself
 * is guideline-reading.ts.
 */

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
 * key, remembered (issue #28; every item of a list asks about the same keys).
 */
function defaultDraw(judgement: string, key: string, memo: CompressorMemo): number {
  return memo.draw(`${judgement}\u0000${key}`, () =>
    seededRandom('sim-compressor', judgement, key)(),
  );
}

/** Whether the prompt shows the key (or a word of it, `play` of `play_count`) or its class. */
function keyShown(key: string, evidence: string, memo: CompressorMemo): boolean {
  if (containsToken(evidence, key)) return true;
  const words = key.split('_').filter((w) => w.length >= 4);
  if (words.some((w) => memo.wordStart(w).test(evidence))) return true;
  const cls = classOf(key);
  return CLASS_EVIDENCE.some(([c, re]) => c === cls && re.test(evidence));
}

export function defaultKeeps(
  key: string,
  value: string,
  evidence: string,
  judgement: string,
  memo: CompressorMemo,
  requested = false,
): boolean {
  if (requested) return true;
  const p =
    value.length >= 2 && containsToken(evidence, value)
      ? KEEP_IF_VALUE_SHOWN
      : memo.keyShown(evidence, key, () => keyShown(key, evidence, memo))
        ? KEEP_IF_KEY_SHOWN
        : KEEP_WITHOUT_EVIDENCE;
  return defaultDraw(judgement, key, memo) < p;
}

/** Longest free text kept whole when the guideline asks to shorten texts. */
export const SHORT_TEXT_CHARS = 80;

/** Words too common to show that a sentence bears on the task. */
const STOPWORDS: ReadonlySet<string> = new Set(
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

/**
 * A long free text shortened the way a reader shortens it (issue 22): the sentences that share a
 * content word with what the prompt shows besides it (the task, the agent's calls) stay, the
 * rest goes; a text with no such sentence keeps its opening. So an email whose body says "my new
 * phone number is …" keeps that sentence when the task is about a new phone number.
 */
export function shorten(value: string, evidence: string, memo: CompressorMemo): string {
  if (value.length <= SHORT_TEXT_CHARS) return value;
  const words = memo.contentWords(evidence, () => contentWords(evidence));
  const kept = value
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && [...contentWords(s)].some((w) => words.has(w)));
  if (kept.length > 0) return kept.join(' … ');
  return `${value.slice(0, SHORT_TEXT_CHARS - 1)}…`;
}

import { CompressorMemo } from './compressor-memo.js';
import { classOf } from './field-classes.js';
import { containsToken } from './text.js';
import { contentWords } from './judgement.js';

/**
 * How much of a list a compressor told to shorten lists keeps when it cannot tell which of its
 * records bear on the job: the first half, the share the sim's summaries keep of what they fold
 * (compressor.ts `MAX_SUMMARY_SHARE`, issue 22). Chosen with that rule before any table was run;
 * never varied to move one.
 */
export const SHORTENED_LIST_SHARE = 0.5;

/** How a compressor shortens lists: see `bearing`. */
export type ListCut = {
  /** The task and the agent's calls: what the records are judged against. */
  focus: string;
  /**
   * "Shorten long lists" (the v0 observation guideline): a response's own list none of whose
   * records bears on the job is cut to its first part instead of kept whole.
   */
  cutUnrelated: boolean;
  memo: CompressorMemo;
};

/**
 * Which records of a list a compressor keeps when it is told to shorten lists (issue 22): "Be
 * concise: shorten long lists" (the v0 observation guideline) or "Be concise" (the v0 history
 * guideline). A compressor that shortens a list keeps the records that bear on the job at hand,
 * as a reader does: a value of the record is one the task or the agent's calls show (the thread it
 * opened, the friends the task names, the account of an app it uses), or it shares a content word
 * with them (the thread titled "My new phone number" when the task is about a new phone number).
 * A list inside a record that bears on the job is part of it and stays whole (the songs of the
 * playlist the task names, not only the one titled "We Are Family" when the task also texts a
 * family member).
 *
 * A list none of whose records bears on the job (the songs of a library the task asks the longest
 * of): a summarizer told only to be concise keeps it whole, since it cannot tell which matter; a
 * compressor told to shorten long lists does what it was told, as a model that cannot rank the
 * records does: it copies the first of them and stops (`SHORTENED_LIST_SHARE`), silently. Lists
 * inside a list's records (a song's artists, a thread's participants) are parts of those records,
 * not long lists.
 */
export function bearing(value: unknown, cut: ListCut, within = false, inItem = false): unknown {
  if (Array.isArray(value)) {
    if (within) return value.map((v) => bearing(v, cut, true, true));
    const items = value.map((v) => bearing(v, cut, false, true));
    const records = items.filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
    if (records.length < 2 || records.length !== items.length) return items;
    const relevant = records.filter((r) =>
      bears(r as Record<string, unknown>, cut.focus, cut.memo),
    );
    if (relevant.length > 0) return relevant;
    if (!cut.cutUnrelated || inItem) return items;
    return items.slice(0, Math.ceil(items.length * SHORTENED_LIST_SHARE));
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const inside = within || bears(record, cut.focus, cut.memo);
    return Object.fromEntries(
      Object.entries(record).map(([k, v]) => [k, bearing(v, cut, inside, inItem)]),
    );
  }
  return value;
}

/**
 * The content words of what the job is about: the task, not the agent's calls (their JSON keys,
 * `access_token` or `page_index`, say nothing of what a record is about). Remembered (every
 * record of a list is judged against the same focus).
 */
function topicWords(focus: string, memo: CompressorMemo): Set<string> {
  const task = () =>
    focus
      .split('\n')
      .filter((l) => !l.startsWith('Action:'))
      .join('\n');
  return memo.contentWords(`topic\u0000${focus}`, () => contentWords(task()));
}

/**
 * Whether a record bears on the job at hand (`focus`: the task and the agent's calls): a value of
 * it is one the focus shows (a name, a title, an id the agent passed; a number only as an id), or a value in prose shares
 * a phrase's worth of content words with the task (two: "My new phone number" and "emailed me a
 * new phone number"), not one word that happens to occur in another part of it ("Great Balls of
 * Fire" and the message "Great to have you in my contacts!").
 */
export function bears(
  record: Record<string, unknown>,
  focus: string,
  memo = new CompressorMemo(),
): boolean {
  const words = topicWords(focus, memo);
  const values = Object.entries(record).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((x) => [k, x] as const),
  );
  return values.some(([key, v]) => {
    // A number is the record's when it is its handle (the song the agent queued, the thread it
    // opened), not a duration or a count that happens to occur in a phone number.
    if (typeof v === 'number')
      return classOf(key) === 'identifiers' && containsToken(focus, String(v));
    if (typeof v !== 'string' || v.length < 3) return false;
    if (containsToken(focus, v)) return true;
    // Words of prose (a subject, a description), not the parts of a url or a path.
    if (!v.includes(' ')) return false;
    let shared = 0;
    for (const w of contentWords(v)) if (words.has(w) && ++shared >= 2) return true;
    return false;
  });
}

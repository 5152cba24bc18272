import { isShapeItem } from '../bench/index.js';
import { abbreviate, containsToken, isOpaque } from './text.js';
import type { CompressorMemo } from './compressor-memo.js';
import { verdictFor, type GuidelineReading, type Verdict } from './guideline-reading.js';
import { defaultKeeps, shorten } from './judgement.js';

/**
 * What the simulated compressors keep of a JSON value (issue 22): what the guideline says about a
 * field as guideline-reading.ts reads it (keep, drop, shorten, at most N items), and for
 * every field it does not name the generic default, a seeded draw that depends only on what the
 * prompt shows (`defaultKeeps`).
 */

/** How one compressor call treats fields: the guideline read, and what its prompt shows. */
export type FieldPolicy = {
  reading: GuidelineReading;
  /** The prompt outside the text being compressed (the task, recent calls): the evidence. */
  evidence: string;
  /**
   * Seeds the default judgements (judgement.ts `judgementSeed`): the compressor, the task and the
   * call whose result is filtered.
   */
  judgement: string;
  /** Fields the agent's reasoning in the prompt says it lacks (compressor.ts `requestedFields`). */
  requested?: ReadonlySet<string>;
  /**
   * What the compressor reads as the job at hand: the task and the agent's calls, without the
   * data of other results; a shortened text keeps its sentences that bear on it.
   */
  focus: string;
  /** Fields left out "unless the task asks about them" that the job does ask about. */
  asked?: ReadonlySet<string>;
  /** The provider's memo of judgements already made (compressor-memo.ts). */
  memo: CompressorMemo;
};

/** What the guideline says about a key in this prompt: a conditional drop the job asks about keeps it. */
function fieldVerdict(key: string, policy: FieldPolicy): Verdict {
  const verdict = verdictFor(key, policy.reading);
  return verdict === 'drop' && policy.asked?.has(key) === true ? 'keep' : verdict;
}

/**
 * The fields of a conditional drop ("omit `genre` unless the task asks about it") that the job
 * at hand asks about, read as a compressor reads it: the task or the agent's calls name the field
 * (`relationship`, a word of it) or show one of its values in this output ("jazz" for `genre`,
 * "neighbor" for `relationship`). Decided per field for the whole output, so every item keeps it.
 */
export function askedFields(value: unknown, reading: GuidelineReading, focus: string): Set<string> {
  const asked = new Set<string>();
  if (reading.unlessAsked.size === 0) return asked;
  const text = focus.toLowerCase();
  const shows = (v: string) => v.length >= 3 && containsToken(text, v.toLowerCase());
  for (const key of reading.unlessAsked) {
    if (shows(key) || key.split('_').some((w) => w.length >= 4 && shows(w))) asked.add(key);
  }
  const visit = (v: unknown, key: string | undefined): void => {
    if (Array.isArray(v)) v.forEach((x) => visit(x, key));
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) visit(x, k);
    } else if (key !== undefined && reading.unlessAsked.has(key) && !asked.has(key)) {
      if (v !== null && v !== undefined && shows(String(v))) asked.add(key);
    }
  };
  visit(value, undefined);
  return asked;
}

/** The fate of one scalar field. */
export function scalarFate(
  key: string,
  value: unknown,
  policy: FieldPolicy,
): { keep: false } | { keep: true; value: unknown } {
  if (value === null || value === undefined) return { keep: false };
  const verdict = fieldVerdict(key, policy);
  if (verdict === 'drop') return { keep: false };
  const text = String(value);
  if (verdict === 'keep') return { keep: true, value };
  if (verdict === 'shorten')
    return {
      keep: true,
      value: typeof value === 'string' ? shorten(value, policy.focus, policy.memo) : value,
    };
  const requested = policy.requested?.has(key) === true;
  if (!defaultKeeps(key, text, policy.evidence, policy.judgement, policy.memo, requested))
    return { keep: false };
  if (policy.reading.shortenTexts && typeof value === 'string') {
    // A brief writer abbreviates a long opaque string it keeps on its own judgement (`atk_0RD0…`)
    // unless asked for values as they are; one the guideline names or the agent asks for, it
    // copies whole.
    if (!policy.reading.exact && !requested && isOpaque(value))
      return { keep: true, value: abbreviate(value) };
    return { keep: true, value: shorten(value, policy.focus, policy.memo) };
  }
  return { keep: true, value };
}

/**
 * `value` filtered field by field; a container under a dropped key goes whole, one under a kept
 * key stays whole; every list is cut to the guideline's "at most N items". Returns `undefined`
 * when nothing survives.
 */
export function filterJson(value: unknown, policy: FieldPolicy): unknown {
  const asked = askedFields(value, policy.reading, policy.focus);
  return walk(value, asked.size === 0 ? policy : { ...policy, asked }, undefined, false);
}

/** `key` is the key the value sits under (a list's items sit under the list's); none at the root. */
function walk(
  value: unknown,
  policy: FieldPolicy,
  key: string | undefined,
  kept: boolean,
): unknown {
  const verdict = key === undefined ? 'default' : fieldVerdict(key, policy);
  if (verdict === 'drop' && !kept) return undefined;
  const max = policy.reading.maxItems;
  if (Array.isArray(value)) {
    const items = max === null ? value : value.slice(0, max);
    const out = items.map((v) => walk(v, policy, key, kept)).filter((v) => v !== undefined);
    return out.length === 0 ? undefined : out;
  }
  if (value !== null && typeof value === 'object') {
    // A container the agent says it lacks (`participants`) is kept whole, as a named one is.
    const keepAll =
      kept || verdict === 'keep' || (key !== undefined && policy.requested?.has(key) === true);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const child = walk(v, policy, k, keepAll);
      if (child !== undefined) out[k] = child;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (key === undefined) return value;
  if (kept && verdict !== 'drop') return value;
  const fate = scalarFate(key, value, policy);
  return fate.keep ? fate.value : undefined;
}

/**
 * Line-wise filter for an observation that is not JSON: `key: value` / `key=value` lines follow
 * the field's fate, other lines stay.
 */
export function filterLines(text: string, policy: FieldPolicy): string {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const kv = /^\s*[-*]?\s*"?([A-Za-z_][\w.]*)"?\s*[:=]\s*(.*)$/.exec(line);
    if (kv) {
      const value = (kv[2] ?? '').trim().replace(/^"|",?$/g, '');
      if (scalarFate(kv[1] ?? '', value, policy).keep) out.push(line);
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}

/** One fact line of a summary: the kept scalar fields of one JSON object. */
export type Fact = { key: string; value: string };

/**
 * The facts of one JSON object after filtering, and where it sits in the response when that is
 * inside a list's item: `songs[0]` (the first item of the `songs` list), `songs[0].album` (the
 * album object of that item), `songs[0].artists[1]`. A summary writes this path the way a reader
 * writes "song 1 of the playlist: … (album …)", so the songs of a playlist stay apart from the
 * playlist itself and from their albums and artists (issue 22). `null` for the response's own
 * fields, the items of a response that is itself a list, and objects outside any list item.
 */
export type FactGroup = { path: string | null; facts: Fact[] };

/**
 * The facts of a JSON value after filtering: one group per object that has kept scalar fields
 * (so an item's name and id stay together), in document order.
 */
export function factGroups(value: unknown, policy: FieldPolicy): FactGroup[] {
  const filtered = filterJson(value, policy);
  const groups: FactGroup[] = [];
  collect(filtered, groups, null);
  return groups;
}

function collect(value: unknown, groups: FactGroup[], path: string | null): void {
  if (Array.isArray(value)) {
    for (const v of value) collect(v, groups, null);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const own: Fact[] = [];
  const nested: [string, unknown][] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v !== null && typeof v === 'object') nested.push([k, v]);
    else own.push({ key: k, value: v === null ? 'null' : String(v) });
  }
  const item = Object.fromEntries(own.map((f) => [f.key, f.value]));
  // Response shapes from the API docs (`id=integer | title=string`) are not data (issue 22).
  if (own.length > 0 && !isShapeItem(item)) groups.push({ path, facts: own });
  for (const [k, v] of nested) {
    const at = path === null ? k : `${path}.${k}`;
    if (Array.isArray(v)) v.forEach((x, i) => collect(x, groups, `${at}[${i}]`));
    // An object outside any list item (an order's shipping address) is written under its key, so
    // that its `id` is not taken for the response's own.
    else collect(v, groups, at);
  }
}

/**
 * `- key=value | key=value`, or `- app.api: key=value | …` naming the call whose result the facts
 * come from, and `- app.api: songs[0]: key=value | …` for an object inside a list's item; a value
 * with a separator or line break is JSON-quoted.
 */
export function formatFactLine(
  group: readonly Fact[],
  source?: string,
  path?: string | null,
): string {
  const parts = group.map(({ key, value }) => {
    const v = /\s\|\s|[\r\n]|^"/.test(value) ? JSON.stringify(value) : value;
    return `${key}=${v}`;
  });
  const where = `${source === undefined ? '' : `${source}: `}${path ? `${path}: ` : ''}`;
  return `- ${where}${parts.join(' | ')}`;
}

/** The facts of a line written by `formatFactLine` (empty for any other line). */
export function parseFactLine(line: string): readonly Fact[] {
  return parseSourcedFactLine(line)?.facts ?? [];
}

export type SourcedFacts = {
  readonly source: string | null;
  /** Where the object sits inside a list's item (`songs[0]`, `songs[0].album`), see FactGroup. */
  readonly path: string | null;
  readonly facts: readonly Fact[];
};

/** Longer lines are parsed every time rather than remembered. */
const FACT_LINE_MAX_CHARS = 2_048;

/**
 * A fact line with the call it names (`null` when it names none); `undefined` for other lines.
 * Remembered in the compressor's memo when given one (issue #28: a summary's lines are read again
 * by every merge). The results are frozen, shared by every caller.
 */
export function parseSourcedFactLine(
  line: string,
  memo?: CompressorMemo,
): SourcedFacts | undefined {
  // Only lines that look like list items are remembered, fact lines or not: others fail at once.
  if (memo === undefined || line.length > FACT_LINE_MAX_CHARS || !/^\s*-/.test(line)) {
    return parseFactLineText(line);
  }
  // A remembered line is parsed from a copy: lines are split from whole prompts, and the key and
  // the values parsed from it (slices of it) would otherwise keep those prompts alive.
  return memo.factLine(line, parseFactLineText);
}

/** `- [app.api: ][path: ]key=value | …`; a path is `songs[0]`, `songs[0].album` or `shipping_address`. */
const FACT_LINE =
  /^\s*-\s+(?:([\w-]+\.[\w-]+): )?(?:([A-Za-z_]\w*(?:\[\d+\])?(?:\.[A-Za-z_]\w*(?:\[\d+\])?)*): )?(.*)$/;

function parseFactLineText(line: string): SourcedFacts | undefined {
  const m = FACT_LINE.exec(line);
  if (!m) return undefined;
  const facts: Fact[] = [];
  for (const part of (m[3] ?? '').split(' | ')) {
    const kv = /^([A-Za-z_][\w.-]*)=(.*)$/.exec(part.trim());
    if (!kv) return undefined;
    let value = kv[2] ?? '';
    if (value.startsWith('"')) {
      try {
        value = String(JSON.parse(value));
      } catch {
        // A value that only starts with a quote stays as written.
      }
    }
    facts.push(Object.freeze({ key: kv[1] ?? '', value }));
  }
  return Object.freeze({ source: m[1] ?? null, path: m[2] ?? null, facts: Object.freeze(facts) });
}

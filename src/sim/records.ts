import { isShapeItem, type Item } from '../bench/index.js';
import { parseSourcedFactLine } from './fields.js';
import { isAbbreviated, jsonSpans, tryParseJson } from './text.js';

/**
 * What the simulated agent can read in its prompt, as records (issue 22): every object in the
 * JSON of tool results (compressed or not) and user messages, every fact line of a history
 * summary, the lines of a plain-text tool result (issue #58), and the arguments of its own
 * earlier calls. A value is available to the agent only as
 * a field of one of these; a token that happens to occur somewhere else in the prompt is not.
 */

/** Where a record was read: which call's result, a summary line, or the agent's own call. */
export type RecordSource =
  | { kind: 'observation'; call: string; args: Record<string, unknown>; message: number }
  | { kind: 'summary'; call: string | null }
  | { kind: 'action'; call: string; message: number }
  | { kind: 'user' };

export type VisibleRecord = {
  fields: Item;
  source: RecordSource;
  /**
   * For an item of a list: the key the list is under, the item's position in it, and how many
   * lists enclose that list (0: a list of the response itself, 1: a list inside its items).
   */
  list?: { key: string; position: number; depth: number };
  /**
   * A summary line's place inside a list's item (`songs[0]`, `songs[0].album`): the agent reads
   * `songs[0]` as the first item of the `songs` list, as it would in the response itself.
   */
  inItem?: boolean;
  /**
   * The scalar fields of the objects inside the record (its list of participants, its album), by
   * dotted key: `participants.name` → every participant's name. What the agent reads with the
   * record when it looks for "the thread with Aidan Hudson" (a nested selector, refs.ts).
   */
  nested?: Readonly<Record<string, readonly string[]>>;
  /**
   * A line of a plain-text tool result (plain-text-records.ts): readable text, but no page of a
   * list and no response envelope, so a masked or cut page is still a page the agent lacks.
   */
  plain?: true;
};

/** `app.api` of an apptown call, else the tool name, and the API's own arguments. */
export function callOf(
  name: string,
  rawArgs: string,
): { call: string; args: Record<string, unknown> } {
  const parsed = tryParseJson(rawArgs);
  const args =
    parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  const { app, api } = args;
  if (typeof app === 'string' && typeof api === 'string') {
    const inner = args.args;
    const own =
      inner !== null && typeof inner === 'object' && !Array.isArray(inner)
        ? (inner as Record<string, unknown>)
        : {};
    return { call: `${app}.${api}`, args: own };
  }
  return { call: name, args };
}

const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** An object's scalar fields as text; a list of scalars (tags, ids) reads as `a, b, c`. */
export function scalars(value: Record<string, unknown>): Item {
  const own: Item = {};
  for (const [k, v] of Object.entries(value)) {
    // A value cut short (`atk_0RD0…`) is not the value: the agent cannot pass it on.
    if (typeof v === 'string' && isAbbreviated(v)) continue;
    if (isScalar(v)) own[k] = String(v);
    else if (Array.isArray(v) && v.length > 0 && v.every(isScalar)) own[k] = v.join(', ');
  }
  return own;
}

function walk(
  value: unknown,
  source: RecordSource,
  out: VisibleRecord[],
  list?: VisibleRecord['list'],
  depth = 0,
): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) =>
      walk(v, source, out, list ? { ...list, position: i } : undefined, depth),
    );
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const fields = scalars(value as Record<string, unknown>);
  if (Object.keys(fields).length > 0 && !isShapeItem(fields)) {
    const nested = nestedFields(value as Record<string, unknown>);
    out.push({ fields, source, ...(list ? { list } : {}), ...(nested ? { nested } : {}) });
  }
  const inner = list ? depth + 1 : depth;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (Array.isArray(v)) walk(v, source, out, { key: k, position: 0, depth: inner }, inner);
    else if (v !== null && typeof v === 'object') walk(v, source, out, undefined, inner);
  }
}

/** The scalar fields of the objects one level inside `value`, by dotted key; none: undefined. */
function nestedFields(value: Record<string, unknown>): VisibleRecord['nested'] {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(value)) {
    for (const inner of Array.isArray(v) ? v : [v]) {
      if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) continue;
      for (const [f, x] of Object.entries(scalars(inner as Record<string, unknown>))) {
        (out[`${k}.${f}`] ??= []).push(x);
      }
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A record of a text before it is placed in a prompt: `summary` is set (the call a fact line
 * names, else its group's) for a fact line, which reads as a summary's record in a user message.
 */
export type TextRecord = {
  fields: Item;
  plain?: true;
  list?: VisibleRecord['list'];
  inItem?: boolean;
  summary?: string | null;
  nested?: VisibleRecord['nested'];
};

/**
 * Where a summary line's path puts its record: `songs[2]` is item 2 of the `songs` list (depth 0),
 * `songs[2].artists[0]` an item of a list inside an item (depth 1), `songs[2].album` an object
 * inside an item, no list's item itself.
 */
function listOfPath(path: string): VisibleRecord['list'] {
  const segments = path.split('.');
  const last = /^(\w+)\[(\d+)\]$/.exec(segments[segments.length - 1] ?? '');
  if (!last) return undefined;
  const depth = segments.filter((s) => s.endsWith(']')).length - 1;
  return { key: last[1]!, position: Number(last[2]), depth };
}

export function readTextRecords(text: string): readonly TextRecord[] {
  const records: VisibleRecord[] = [];
  const placeholder: RecordSource = { kind: 'user' };
  for (const span of jsonSpans(text)) walk(span, placeholder, records);
  const out: TextRecord[] = records.map((r) => ({
    fields: Object.freeze(r.fields),
    ...(r.list ? { list: Object.freeze(r.list) } : {}),
    ...(r.nested ? { nested: r.nested } : {}),
  }));
  if (!text.includes('=')) return out;
  let group: string | null = null;
  // The newest line of each path of each call: `items[1].participants[0]` belongs to the
  // `items[1]` line above it, as a reader takes the lines under an item for that item's.
  const byPath = new Map<string, TextRecord & { nested: Record<string, string[]> }>();
  for (const line of text.split('\n')) {
    const header = /^\[([\w-]+\.[\w-]+)\]$/.exec(line.trim());
    if (header) {
      group = header[1] ?? null;
      continue;
    }
    if (/^[A-Z_]+:/.test(line)) group = null;
    const fact = parseSourcedFactLine(line);
    if (fact === undefined || fact.facts.length === 0) continue;
    const fields: Item = Object.fromEntries(
      fact.facts.filter((f) => !isAbbreviated(f.value)).map((f) => [f.key, f.value]),
    );
    if (Object.keys(fields).length === 0 || isShapeItem(fields)) continue;
    const list = fact.path === null ? undefined : listOfPath(fact.path);
    const summary = fact.source ?? group;
    const record = {
      fields: Object.freeze(fields),
      summary,
      ...(fact.path === null ? {} : { inItem: true }),
      ...(list ? { list: Object.freeze(list) } : {}),
      nested: {} as Record<string, string[]>,
    };
    out.push(record);
    if (fact.path === null) continue;
    byPath.set(`${summary}\u0000${fact.path}`, record);
    const cut = /^(.*)\.(\w+)(?:\[\d+\])?$/.exec(fact.path);
    const parent = cut ? byPath.get(`${summary}\u0000${cut[1]}`) : undefined;
    if (parent && cut) {
      for (const [f, v] of Object.entries(fields)) (parent.nested[`${cut[2]}.${f}`] ??= []).push(v);
    }
  }
  return out.map((r) =>
    r.nested !== undefined && Object.keys(r.nested).length === 0 ? { ...r, nested: undefined } : r,
  );
}

export function placeRecords(
  records: readonly TextRecord[],
  source: RecordSource,
  out: VisibleRecord[],
): void {
  for (const r of records) {
    const nested = r.nested ? { nested: r.nested } : {};
    if (r.summary === undefined) {
      out.push({
        fields: r.fields,
        source,
        ...(r.list ? { list: r.list } : {}),
        ...(r.plain ? { plain: true } : {}),
        ...nested,
      });
    } else {
      const from: RecordSource =
        source.kind === 'user' ? { kind: 'summary', call: r.summary } : source;
      out.push({
        fields: r.fields,
        source: from,
        ...(r.list ? { list: r.list } : {}),
        ...(r.inItem ? { inItem: true } : {}),
        ...nested,
      });
    }
  }
}

/** Records as the flat items a choice is computed over (the agent's own calls left out). */
export function itemsOf(records: readonly VisibleRecord[]): Item[] {
  return records.filter((r) => r.source.kind !== 'action').map((r) => r.fields);
}

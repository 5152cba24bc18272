import { isShapeItem, type Item } from '../bench/choice.js';
import type { ChatMessage } from '../llm/types.js';
import { parseSourcedFactLine } from './fields.js';
import { jsonSpans, tryParseJson } from './text.js';

/**
 * What the simulated agent can read in its prompt, as records (issue 22): every object in the
 * JSON of tool results (compressed or not) and user messages, every fact line of a history
 * summary, and the arguments of its own earlier calls. A value is available to the agent only as
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
function scalars(value: Record<string, unknown>): Item {
  const own: Item = {};
  for (const [k, v] of Object.entries(value)) {
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
    out.push({ fields, source, ...(list ? { list } : {}) });
  }
  const inner = list ? depth + 1 : depth;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (Array.isArray(v)) walk(v, source, out, { key: k, position: 0, depth: inner }, inner);
    else if (v !== null && typeof v === 'object') walk(v, source, out, undefined, inner);
  }
}

/** The records of one text: its JSON objects and its fact lines. */
export function recordsOfText(text: string, source: RecordSource, out: VisibleRecord[]): void {
  for (const span of jsonSpans(text)) walk(span, source, out);
  if (!text.includes('=')) return;
  let group: string | null = null;
  for (const line of text.split('\n')) {
    const header = /^\[([\w-]+\.[\w-]+)\]$/.exec(line.trim());
    if (header) {
      group = header[1] ?? null;
      continue;
    }
    if (/^[A-Z_]+:/.test(line)) group = null;
    const fact = parseSourcedFactLine(line);
    if (fact === undefined || fact.facts.length === 0) continue;
    const fields: Item = Object.fromEntries(fact.facts.map((f) => [f.key, f.value]));
    if (isShapeItem(fields)) continue;
    const from: RecordSource =
      source.kind === 'user' ? { kind: 'summary', call: fact.source ?? group } : source;
    out.push({ fields, source: from });
  }
}

/** Every record of the messages, oldest first. */
export function visibleRecords(messages: readonly ChatMessage[]): VisibleRecord[] {
  const out: VisibleRecord[] = [];
  const calls = new Map<string, { call: string; args: Record<string, unknown> }>();
  messages.forEach((m, message) => {
    if (m.role === 'assistant') {
      for (const c of m.tool_calls ?? []) {
        const parsed = callOf(c.function.name, c.function.arguments);
        calls.set(c.id, parsed);
        const fields = scalars(parsed.args);
        if (Object.keys(fields).length > 0) {
          out.push({ fields, source: { kind: 'action', call: parsed.call, message } });
        }
      }
      return;
    }
    if (m.role === 'system') return;
    if (m.role === 'tool') {
      const c = calls.get(m.tool_call_id);
      const source: RecordSource = c
        ? { kind: 'observation', call: c.call, args: c.args, message }
        : { kind: 'user' };
      recordsOfText(m.content, source, out);
      return;
    }
    recordsOfText(m.content, { kind: 'user' }, out);
  });
  return out;
}

/** The calls the agent can see it made, newest last: `app.api` and the API's arguments. */
export function visibleActions(
  messages: readonly ChatMessage[],
): { call: string; args: Record<string, unknown>; message: number }[] {
  const out: { call: string; args: Record<string, unknown>; message: number }[] = [];
  messages.forEach((m, message) => {
    if (m.role !== 'assistant') return;
    for (const c of m.tool_calls ?? [])
      out.push({ ...callOf(c.function.name, c.function.arguments), message });
  });
  return out;
}

/** Records as the flat items a choice is computed over (the agent's own calls left out). */
export function itemsOf(records: readonly VisibleRecord[]): Item[] {
  return records.filter((r) => r.source.kind !== 'action').map((r) => r.fields);
}

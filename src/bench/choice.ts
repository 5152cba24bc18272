import type { ChoiceCondition, ReferenceChoice, ReferenceDecision } from './types.js';

/**
 * Computing a ReferenceChoice over items (issue 13): the benchmark checks with it that a task's
 * declared choice gives the reference value over the raw observations, and the `sim` agent
 * computes its choice with it from what it can see. Pure functions.
 */

/** An object's own scalar fields as text: what a list item says about itself. */
export type Item = Record<string, string>;

/** `string`, `list[integer]`, `string | null`: a value that names a type (API docs' response shapes). */
const TYPE_NAME = /^(?:string|integer|number|boolean|any|object|null|list\[[^\]]*\])(?: \| .+)?$/;

/**
 * Every object inside a JSON value as an item (nested objects are items of their own). Objects
 * whose values are all type names are response shapes from the API docs, not data, and are
 * skipped.
 */
export function itemsOfJson(value: unknown, out: Item[] = []): Item[] {
  if (Array.isArray(value)) {
    for (const v of value) itemsOfJson(v, out);
    return out;
  }
  if (value === null || typeof value !== 'object') return out;
  const own: Item = {};
  const nested: unknown[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
      own[k] = String(v);
    else if (v !== null && typeof v === 'object') nested.push(v);
  }
  if (Object.keys(own).length > 0 && !isShapeItem(own)) out.push(own);
  for (const v of nested) itemsOfJson(v, out);
  return out;
}

/**
 * Whether an item is a response shape from the API docs (`{id: 'integer', title: 'string'}`),
 * not data: every value names a type.
 */
export function isShapeItem(item: Item): boolean {
  const values = Object.values(item);
  return values.length > 0 && values.every((v) => TYPE_NAME.test(v));
}

/** The fields a choice reads: compared or summed, taken, filtered on. */
export function choiceFields(choice: ReferenceChoice): string[] {
  const fields = [choice.by, choice.take, ...Object.keys(choice.where ?? {})];
  return [...new Set(fields.filter((f): f is string => f !== undefined))];
}

function asNumber(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** Numbers compare as numbers, anything else (ISO dates) as text. */
function compare(a: string, b: string): number {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) return x - y;
  return a < b ? -1 : a > b ? 1 : 0;
}

function satisfies(text: string, cond: ChoiceCondition): boolean {
  if (typeof cond === 'string' || typeof cond === 'number') {
    return text.trim().toLowerCase() === String(cond).trim().toLowerCase();
  }
  if ('prefix' in cond) return text.startsWith(cond.prefix);
  if (cond.gte !== undefined && compare(text, String(cond.gte)) < 0) return false;
  if (cond.lte !== undefined && compare(text, String(cond.lte)) > 0) return false;
  return true;
}

/** Items that have every field the choice reads and satisfy its conditions, each once. */
export function choiceCandidates(choice: ReferenceChoice, items: readonly Item[]): Item[] {
  const fields = choiceFields(choice);
  const seen = new Set<string>();
  const out: Item[] = [];
  for (const item of items) {
    if (!fields.every((f) => item[f] !== undefined)) continue;
    const where = Object.entries(choice.where ?? {});
    if (!where.every(([f, cond]) => satisfies(item[f] as string, cond))) continue;
    const key = JSON.stringify(fields.map((f) => item[f]));
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}

/**
 * The choice over the candidates among `items`; `undefined` when there is none (`count` and
 * `sum` of nothing are 0).
 */
export function computeChoice(choice: ReferenceChoice, items: readonly Item[]): string | undefined {
  const candidates = choiceCandidates(choice, items);
  switch (choice.op) {
    case 'count':
      return String(candidates.length);
    case 'sum': {
      const by = choice.by ?? '';
      const total = candidates.reduce((s, item) => s + (asNumber(item[by] ?? '') ?? 0), 0);
      return String(Math.round(total * 100) / 100);
    }
    case 'max':
    case 'min': {
      const by = choice.by ?? '';
      const sign = choice.op === 'max' ? 1 : -1;
      let best: Item | undefined;
      for (const item of candidates) {
        if (!best || sign * compare(item[by] as string, best[by] as string) > 0) best = item;
      }
      if (!best) return undefined;
      return best[choice.take ?? by];
    }
  }
}

/**
 * The branch of a declared decision for a record's field value (`undefined`: the value is not a
 * number where the comparison needs one).
 */
export function decideBranch(decision: ReferenceDecision, text: string): string | undefined {
  if (decision.op === 'eq') {
    const same = text.trim().toLowerCase() === String(decision.value).trim().toLowerCase();
    return same ? decision.then : decision.else;
  }
  const x = asNumber(text);
  const y = Number(decision.value);
  if (x === undefined || !Number.isFinite(y)) return undefined;
  const holds =
    decision.op === 'lt'
      ? x < y
      : decision.op === 'lte'
        ? x <= y
        : decision.op === 'gt'
          ? x > y
          : x >= y;
  return holds ? decision.then : decision.else;
}

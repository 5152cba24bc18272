import type { ReferenceNeed } from '../bench/index.js';
import { seededRandom, type Random } from '../seeded-random.js';
import type { VisibleRecord } from './records.js';
import { containsToken } from './text.js';

/** The wrong values the agent passes: a guess for a value it cannot find, a slip, a corruption. */

/**
 * The value the agent makes up for one it cannot find: a seeded value of the same shape (digits
 * for digits, letters for letters), keyed by the task and where the value comes from, never by
 * the value itself (the agent does not know it).
 */
export function guessValue(need: ReferenceNeed, seed: number, taskId: string): string {
  const random = seededRandom(seed, taskId, 'guess', need.fromStep, need.field ?? need.arg ?? '');
  return [...need.value]
    .map((c) => {
      if (c >= '0' && c <= '9') return String(Math.floor(random() * 10));
      if (c >= 'a' && c <= 'z') return String.fromCharCode(97 + Math.floor(random() * 26));
      if (c >= 'A' && c <= 'Z') return String.fromCharCode(65 + Math.floor(random() * 26));
      return c;
    })
    .join('');
}

/**
 * A wrong value of the same shape: the last digit (or else the last letter) changed, chosen
 * deterministically from the seed, the task and the value.
 */
export function corrupt(value: string, seed: number, taskId: string): string {
  return corruptWith(value, seededRandom(seed, taskId, 'guess', value));
}

function corruptWith(value: string, random: Random): string {
  const chars = [...value];
  for (let i = chars.length - 1; i >= 0; i--) {
    const c = chars[i]!;
    if (c >= '0' && c <= '9') {
      chars[i] = String((Number(c) + 1 + Math.floor(random() * 9)) % 10);
      return chars.join('');
    }
  }
  for (let i = chars.length - 1; i >= 0; i--) {
    const c = chars[i]!;
    const base = c >= 'a' && c <= 'z' ? 97 : c >= 'A' && c <= 'Z' ? 65 : -1;
    if (base !== -1) {
      const shift = 1 + Math.floor(random() * 25);
      chars[i] = String.fromCharCode(base + ((c.charCodeAt(0) - base + shift) % 26));
      return chars.join('');
    }
  }
  return `${value}x`;
}

/** `args` with every whole-token occurrence of `value` (in strings, or as a number) replaced. */
export function replaceValue<T>(args: T, value: string, wrong: string): T {
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v === value ? wrong : replaceTokens(v, value, wrong);
    }
    if (typeof v === 'number') {
      return String(v) === value && Number.isFinite(Number(wrong)) ? Number(wrong) : v;
    }
    if (Array.isArray(v)) return v.map(visit);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, visit(x)]));
    }
    return v;
  };
  return visit(args) as T;
}

function replaceTokens(text: string, value: string, wrong: string): string {
  if (!containsToken(text, value)) return text;
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`, 'g'), wrong);
}

/**
 * One scalar argument (not the app or API name) made wrong: the agent's random slip. A model's
 * wrong value is mostly a plausible one: the same field of another record of the same kind it
 * can see (the neighbouring song's id, the next contact of a search), which an API accepts as
 * readily as the right one. A value with no such neighbour in view is mistyped. So the more
 * records of a kind a prompt holds, the likelier a slip goes unnoticed (issue 22).
 */
export function slip(
  args: Record<string, unknown>,
  random: Random,
  records: readonly VisibleRecord[],
): Record<string, unknown> {
  const paths: string[][] = [];
  const walk = (v: unknown, path: string[]) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    } else if (typeof v === 'string' || typeof v === 'number') {
      const key = path[path.length - 1];
      if (path.length > 1 || (key !== 'app' && key !== 'api')) paths.push(path);
    }
  };
  walk(args, []);
  if (paths.length === 0) return args;
  const path = paths[Math.floor(random() * paths.length)]!;
  const copy = structuredClone(args);
  let parent: Record<string, unknown> = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string, unknown>;
  const key = path[path.length - 1]!;
  const old = parent[key];
  const wrong = confusedWith(String(old), records, random) ?? corruptWith(String(old), random);
  parent[key] = typeof old === 'number' && Number.isFinite(Number(wrong)) ? Number(wrong) : wrong;
  return copy;
}

/**
 * Another value of a field that holds `value`, taken from a visible record of the same kind (the
 * same call's response, the same list: another contact of the search, not a song), drawn with
 * `random`; undefined when no visible record holds `value` or no record of its kind differs there.
 */
function confusedWith(
  value: string,
  records: readonly VisibleRecord[],
  random: Random,
): string | undefined {
  const holders = new Set<string>();
  for (const r of records) {
    for (const [k, v] of Object.entries(r.fields))
      if (v === value) holders.add(`${k}\n${kindOf(r)}`);
  }
  if (holders.size === 0) return undefined;
  const others = new Set<string>();
  for (const r of records) {
    const kind = kindOf(r);
    for (const [k, v] of Object.entries(r.fields)) {
      if (v !== value && holders.has(`${k}\n${kind}`)) others.add(v);
    }
  }
  if (others.size === 0) return undefined;
  const sorted = [...others].sort();
  return sorted[Math.floor(random() * sorted.length)];
}

/** What kind of record it is: the call that returned it (or the summary) and the list it is in. */
function kindOf(r: VisibleRecord): string {
  const from = r.source.kind === 'user' ? 'user' : (r.source.call ?? 'summary');
  return `${r.source.kind}:${from}:${r.list?.key ?? ''}`;
}

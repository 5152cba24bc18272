/**
 * Templates in reference arguments (syntax documented in task-schema.ts): parsing, and
 * resolving them against earlier responses while recording which values were copied from
 * which step, the "needs" of the `sim` agent (ARCHITECTURE §6).
 */

/**
 * One condition of a `[...]` match: `field` may name a field of a nested list's items
 * (`participants.name`: some participant's name), as a reader says "the thread with Aidan".
 */
export type MatchCondition = { field: string; value: string; prefix: boolean };

export type PathSegment =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | ({ kind: 'match'; and?: MatchCondition[] } & MatchCondition);

export type Ref = { root: string; path: PathSegment[]; source: string };

const TEMPLATE = /\{\{\s*([^{}]+?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]+?)\s*\}\}$/;

export function parseRef(source: string): Ref {
  const root = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source)?.[0];
  if (!root) throw new Error(`"{{${source}}}" must start with a step id or "supervisor"`);
  const path: PathSegment[] = [];
  let rest = source.slice(root.length);
  while (rest.length > 0) {
    const field = /^\.([A-Za-z_][A-Za-z0-9_]*)/.exec(rest);
    const bracket = /^\[([^\]]*)\]/.exec(rest);
    if (field?.[1]) {
      path.push({ kind: 'field', name: field[1] });
      rest = rest.slice(field[0].length);
    } else if (bracket && bracket[1] !== undefined) {
      const inner = bracket[1];
      const eq = inner.indexOf('=');
      if (/^-?\d+$/.test(inner)) {
        path.push({ kind: 'index', index: Number(inner) });
      } else if (eq > 0) {
        // `&` joins conditions only before another `field=`: "The Mockingbird & The Crow" is a title.
        const [first, ...rest] = inner
          .split(/&(?=[A-Za-z_][\w.]*\^?=)/)
          .map((c) => condition(c, source));
        path.push({ kind: 'match', ...first!, ...(rest.length > 0 ? { and: rest } : {}) });
      } else {
        throw new Error(
          `"[${inner}]" in "{{${source}}}" must be an index like [0] or a match like [title=Blue Hour]`,
        );
      }
      rest = rest.slice(bracket[0].length);
    } else {
      throw new Error(`cannot read "${rest}" in "{{${source}}}"; use .field, [n] or [field=value]`);
    }
  }
  return { root, path, source };
}

/** `field=value` or `field^=prefix`, one condition of a match. */
function condition(text: string, source: string): MatchCondition {
  const eq = text.indexOf('=');
  if (eq <= 0) {
    throw new Error(`"${text}" in "{{${source}}}" must be a condition like title=Blue Hour`);
  }
  const prefix = text[eq - 1] === '^';
  const field = text.slice(0, prefix ? eq - 1 : eq).trim();
  return { field, value: text.slice(eq + 1).trim(), prefix };
}

/**
 * The values of a dotted field in an item, as text: `title` its title, `participants.name` the
 * name of each of its participants (a list of objects, or one object).
 */
export function fieldValues(item: unknown, field: string): string[] {
  const [head, ...rest] = field.split('.');
  if (item === null || typeof item !== 'object' || Array.isArray(item) || head === undefined) {
    return [];
  }
  const v = (item as Record<string, unknown>)[head];
  if (rest.length === 0) return v === undefined || v === null ? [] : [String(v)];
  const inner = Array.isArray(v) ? v : [v];
  return inner.flatMap((x) => fieldValues(x, rest.join('.')));
}

/** Every template expression inside a value (strings in nested objects and lists included). */
export function refsIn(value: unknown): Ref[] {
  if (typeof value === 'string')
    return [...value.matchAll(TEMPLATE)].map((m) => parseRef(m[1] as string));
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(refsIn);
  return [];
}

function itemMatches(item: unknown, seg: Extract<PathSegment, { kind: 'match' }>): boolean {
  return [seg, ...(seg.and ?? [])].every((c) =>
    fieldValues(item, c.field).some((text) =>
      c.prefix ? text.startsWith(c.value) : text === c.value,
    ),
  );
}

export function followPath(value: unknown, ref: Ref): unknown {
  let cur = value;
  for (const seg of ref.path) {
    if (seg.kind === 'field') {
      if (!cur || typeof cur !== 'object' || Array.isArray(cur) || !(seg.name in cur)) {
        throw new Error(`{{${ref.source}}}: no field "${seg.name}"`);
      }
      cur = (cur as Record<string, unknown>)[seg.name];
    } else {
      if (!Array.isArray(cur))
        throw new Error(
          `{{${ref.source}}}: expected a list before [${seg.kind === 'index' ? seg.index : seg.field}]`,
        );
      const list: unknown[] = cur;
      const found =
        seg.kind === 'index' ? list.at(seg.index) : list.find((x) => itemMatches(x, seg));
      if (found === undefined) {
        const what =
          seg.kind === 'index'
            ? `index ${seg.index}`
            : `item with ${[seg, ...(seg.and ?? [])].map((c) => `${c.field}=${c.value}`).join(' and ')}`;
        throw new Error(`{{${ref.source}}}: no ${what} in a list of ${list.length}`);
      }
      cur = found;
    }
  }
  return cur;
}

/**
 * How a copied value is picked out of its response (issue 22): the agent must find the same record
 * among what it can see. `match`: the item whose `field` equals (or starts with) `value`, a
 * selector the task names ("the album titled X"); `index`: the `index`-th item of the list under
 * `list` (the agent works through a list in order); `root`: a field of the response itself.
 */
export type NeedSelect =
  | ({ kind: 'match'; and?: MatchCondition[] } & MatchCondition)
  | { kind: 'index'; list: string; index: number }
  | { kind: 'root' };

/**
 * A value copied from an earlier response; `fromStep` is that step's position in the plan,
 * `field` the key it is read from, `select` how its record is found, `arg` the argument key it is
 * passed as (each absent when the template does not say).
 */
export type Need = {
  value: string;
  fromStep: number;
  field?: string;
  select?: NeedSelect;
  arg?: string;
  in?: 'task' | 'docs' | 'observation';
};

export type Scope = {
  /** Responses of the steps run so far, by step id, with their position. */
  steps: Map<string, { index: number; result: unknown }>;
  /** What the first user message tells the agent about the supervisor. */
  supervisor: Record<string, string>;
};

function lookup(ref: Ref, scope: Scope): { value: unknown; fromStep: number | null } {
  if (ref.root === 'supervisor')
    return { value: followPath(scope.supervisor, ref), fromStep: null };
  const step = scope.steps.get(ref.root);
  if (!step) throw new Error(`{{${ref.source}}}: no earlier step "${ref.root}"`);
  return { value: followPath(step.result, ref), fromStep: step.index };
}

/** The key a ref reads last and the selector of the record it reads it from. */
export function selectorOf(ref: Ref): { field: string; select: NeedSelect } | undefined {
  const last = ref.path[ref.path.length - 1];
  if (last?.kind !== 'field') return undefined;
  const before = ref.path[ref.path.length - 2];
  if (before === undefined) return { field: last.name, select: { kind: 'root' } };
  if (before.kind === 'match') {
    const { field, value, prefix, and } = before;
    return {
      field: last.name,
      select: { kind: 'match', field, value, prefix, ...(and ? { and } : {}) },
    };
  }
  const list = ref.path[ref.path.length - 3];
  if (before.kind === 'index' && list?.kind === 'field' && ref.path.length === 3) {
    return { field: last.name, select: { kind: 'index', list: list.name, index: before.index } };
  }
  return undefined;
}

function needsOf(value: unknown, fromStep: number | null, ref: Ref): Need[] {
  if (fromStep === null) return [];
  if (Array.isArray(value)) return value.flatMap((v) => needsOf(v, fromStep, { ...ref, path: [] }));
  if (value !== null && typeof value === 'object') {
    throw new Error(`{{${ref.source}}} is an object; point the path at a field of it`);
  }
  return [{ value: String(value), fromStep, ...(selectorOf(ref) ?? {}) }];
}

/** Resolve every template in `value`; throws an Error naming the template when one fails. */
export function resolveTemplates(value: unknown, scope: Scope): { value: unknown; needs: Need[] } {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) {
      const ref = parseRef(whole[1] as string);
      const hit = lookup(ref, scope);
      return { value: hit.value, needs: needsOf(hit.value, hit.fromStep, ref) };
    }
    const needs: Need[] = [];
    const text = value.replace(TEMPLATE, (_m, expr: string) => {
      const ref = parseRef(expr);
      const hit = lookup(ref, scope);
      needs.push(...needsOf(hit.value, hit.fromStep, ref));
      return String(hit.value);
    });
    return { value: text, needs };
  }
  if (Array.isArray(value)) {
    const parts = value.map((v) => resolveTemplates(v, scope));
    return { value: parts.map((p) => p.value), needs: parts.flatMap((p) => p.needs) };
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => [k, resolveTemplates(v, scope)] as const);
    return {
      value: Object.fromEntries(entries.map(([k, r]) => [k, r.value])),
      needs: entries.flatMap(([k, r]) =>
        r.needs.map((n) => (n.arg === undefined ? { ...n, arg: k } : n)),
      ),
    };
  }
  return { value, needs: [] };
}

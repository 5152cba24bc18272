/**
 * A JSON message with its long strings stored apart: the same history summary is the content of
 * a compressor's answer, of the agent's next prompt and of the next compressor input, but inside
 * JSON its newlines and quotes are escaped, so the JSON texts share no lines with the plain
 * summary. The skeleton keeps the structure and names each long string by its blob key, marked
 * by a leading NUL character (a value with a string of its own that starts so is not split).
 */

const MARK = '\u0000';

/**
 * The skeleton of `value` (whose JSON.stringify is `text`), storing each string of at least
 * `minChars` characters with `put`; undefined when there is no such string, when a string of
 * the value itself starts with the mark, or when the skeleton would not give `text` back.
 */
export function splitLongStrings(
  value: object,
  text: string,
  minChars: number,
  put: (s: string) => string,
): string | undefined {
  const strings = new Map<string, string>();
  let clash = false;
  const skeleton = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'string') return v;
    if (v.startsWith(MARK)) clash = true;
    if (v.length < minChars) return v;
    const k = put(v);
    strings.set(k, v);
    return MARK + k;
  });
  if (clash || strings.size === 0) return undefined;
  // JSON.stringify(JSON.parse(x)) is x for what JSON.stringify wrote; checked, not assumed.
  const back = joinLongStrings(skeleton, (k) => strings.get(k)!);
  return back === text ? skeleton : undefined;
}

/** The JSON text a skeleton stands for. */
export function joinLongStrings(skeleton: string, textOf: (key: string) => string): string {
  return JSON.stringify(
    JSON.parse(skeleton, (_key, v: unknown) =>
      typeof v === 'string' && v.startsWith(MARK) ? textOf(v.slice(1)) : v,
    ),
  );
}

/** The blob keys a skeleton refers to. */
export function skeletonKeys(skeleton: string): string[] {
  const keys: string[] = [];
  JSON.parse(skeleton, (_key, v: unknown) => {
    if (typeof v === 'string' && v.startsWith(MARK)) keys.push(v.slice(1));
    return v;
  });
  return keys;
}

/**
 * A skeleton as a template whose long strings are the mark alone, and their keys in the order
 * JSON.parse visits them (stored as bytes: 16 a key instead of 32 hex digits). Undefined when
 * the template would not give the skeleton back.
 */
export function packSkeleton(skeleton: string): { template: string; keys: string[] } | undefined {
  const keys: string[] = [];
  const template = JSON.stringify(
    JSON.parse(skeleton, (_key, v: unknown) => {
      if (typeof v !== 'string' || !v.startsWith(MARK)) return v;
      keys.push(v.slice(1));
      return MARK;
    }),
  );
  return unpackSkeleton(template, keys) === skeleton ? { template, keys } : undefined;
}

/** The skeleton of a template and its keys (packSkeleton). */
export function unpackSkeleton(template: string, keys: readonly string[]): string {
  let i = 0;
  return JSON.stringify(
    JSON.parse(template, (_key, v: unknown) => (v === MARK ? MARK + keys[i++]! : v)),
  );
}

import { z } from 'zod';

/**
 * Texts stored as edits of an earlier, similar text. A trajectory's long texts are mostly copies
 * of each other: each history summary is the previous one with a few lines added, and the same
 * summary is sent again inside the next compressor input and the agent's prompt. Stored whole,
 * every version costs its full size; as a delta it costs its new lines.
 *
 * Texts are cut into tokens that end after a newline or a comma (lines of a summary, elements of
 * a JSON list) to find what they share, and a delta is a list of operations: `[start, length]`
 * copies `length` characters of the base from character `start` (so a reader never cuts the
 * base into tokens); a string is new text.
 */

export const DeltaOpsSchema = z.array(
  z.union([z.tuple([z.number().int().nonnegative(), z.number().int().positive()]), z.string()]),
);
export type DeltaOps = z.infer<typeof DeltaOpsSchema>;

/** The tokens of a text; joined, they give the text back. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 /* \n */ || c === 44 /* , */) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** Positions of each token in a base, for finding copies. */
export type TokenIndex = Map<string, number[]>;

/** Where each token of a base occurs (at most `perToken` places each: common tokens repeat). */
export function indexTokens(base: readonly string[], perToken = 16): TokenIndex {
  const index: TokenIndex = new Map();
  for (let i = 0; i < base.length; i++) {
    const t = base[i]!;
    const at = index.get(t);
    if (at === undefined) index.set(t, [i]);
    else if (at.length < perToken) at.push(i);
  }
  return index;
}

/** Where each token of a text starts, in characters (one more entry: the text's length). */
export function tokenStarts(tokens: readonly string[]): number[] {
  const at = new Array<number>(tokens.length + 1);
  at[0] = 0;
  for (let i = 0; i < tokens.length; i++) at[i + 1] = at[i]! + tokens[i]!.length;
  return at;
}

/** How many tokens match from base[b] and target[t] on. */
function runLength(
  base: readonly string[],
  b: number,
  target: readonly string[],
  t: number,
): number {
  let n = 0;
  while (b + n < base.length && t + n < target.length && base[b + n] === target[t + n]) n++;
  return n;
}

/** A copy shorter than this many characters is written as new text (an op costs about as much). */
const MIN_COPY_CHARS = 8;

/**
 * The operations that turn `base` into `target`: greedy, longest copy first. A copy continues
 * where the last one ended when it can (edits are mostly insertions), else it starts at the
 * occurrence of the token that matches longest.
 */
export function diffTokens(
  base: readonly string[],
  target: readonly string[],
  index: TokenIndex = indexTokens(base),
  at: readonly number[] = tokenStarts(base),
): { ops: DeltaOps; copiedChars: number } {
  const ops: DeltaOps = [];
  let copiedChars = 0;
  let next = 0; // the base token after the last copy
  let t = 0;
  while (t < target.length) {
    let bestStart = -1;
    let bestLen = 0;
    if (next < base.length && base[next] === target[t]) {
      bestStart = next;
      bestLen = runLength(base, next, target, t);
    }
    if (bestLen < 4) {
      for (const b of index.get(target[t]!) ?? []) {
        const len = runLength(base, b, target, t);
        if (len > bestLen) {
          bestStart = b;
          bestLen = len;
        }
      }
    }
    const chars = bestLen > 0 ? at[bestStart + bestLen]! - at[bestStart]! : 0;
    if (bestLen > 0 && chars >= MIN_COPY_CHARS) {
      const last = ops[ops.length - 1];
      if (Array.isArray(last) && last[0] + last[1] === at[bestStart]) last[1] += chars;
      else ops.push([at[bestStart]!, chars]);
      copiedChars += chars;
      t += bestLen;
      next = bestStart + bestLen;
    } else {
      const last = ops[ops.length - 1];
      if (typeof last === 'string') ops[ops.length - 1] = last + target[t]!;
      else ops.push(target[t]!);
      t++;
    }
  }
  return { ops, copiedChars };
}

/** A further text to copy from: its tokens, and where it starts in the sources joined. */
export type CopySource = {
  tokens: readonly string[];
  index: TokenIndex;
  at: readonly number[];
  offset: number;
};

/**
 * Copies more of a target from one more source: each run of new text in `ops` of at least
 * `minChars` characters is diffed against it (a run is whole tokens, so cutting it again gives
 * the same tokens). Copies in the result count characters of all the sources joined.
 */
export function copyMore(
  ops: DeltaOps,
  source: CopySource,
  minChars = 2 * MIN_COPY_CHARS,
): { ops: DeltaOps; copiedChars: number } {
  const out: DeltaOps = [];
  let copiedChars = 0;
  const push = (op: DeltaOps[number]) => {
    const last = out[out.length - 1];
    if (typeof op === 'string') {
      if (typeof last === 'string') out[out.length - 1] = last + op;
      else out.push(op);
    } else if (Array.isArray(last) && last[0] + last[1] === op[0]) {
      out[out.length - 1] = [last[0], last[1] + op[1]];
    } else out.push(op);
  };
  for (const op of ops) {
    if (typeof op !== 'string' || op.length < minChars) {
      push(op);
      continue;
    }
    const sub = diffTokens(source.tokens, tokenize(op), source.index, source.at);
    copiedChars += sub.copiedChars;
    for (const s of sub.ops) push(typeof s === 'string' ? s : [s[0] + source.offset, s[1]]);
  }
  return { ops: out, copiedChars };
}

/** The text the operations make of `base`; throws on a copy outside the base. */
export function applyDelta(base: string, ops: DeltaOps): string {
  let out = '';
  for (const op of ops) {
    if (typeof op === 'string') {
      out += op;
      continue;
    }
    const [start, length] = op;
    if (start + length > base.length) {
      throw new Error(
        `delta copies characters ${start}–${start + length} of a ${base.length}-character base`,
      );
    }
    out += base.slice(start, start + length);
  }
  return out;
}

/**
 * Operations as bytes (blob encoding 10): a varint with the length of the list of operations,
 * the list, then the new text of every string operation, UTF-8, one after the other. In the list
 * a copy is varint(2 × length) then varint(zigzag(start − end of the copy before)) (a copy
 * usually starts where the last one ended, or near it); a string is varint(2 × bytes + 1). The
 * new text stays as it is (JSON would escape every newline and quote), so deflate matches it
 * against the dictionary. The texts must be well-formed UTF-16 (no lone surrogates).
 */
export function packOps(ops: DeltaOps): Buffer {
  const list: number[] = [];
  const texts: Buffer[] = [];
  let end = 0;
  for (const op of ops) {
    if (typeof op === 'string') {
      const bytes = Buffer.from(op, 'utf8');
      texts.push(bytes);
      varint(list, bytes.length * 2 + 1);
      continue;
    }
    const [start, length] = op;
    varint(list, length * 2);
    const rel = start - end;
    varint(list, rel >= 0 ? rel * 2 : -rel * 2 - 1);
    end = start + length;
  }
  const head: number[] = [];
  varint(head, list.length);
  return Buffer.concat([Buffer.from(head), Buffer.from(list), ...texts]);
}

/** The operations packOps wrote; throws on bytes it did not write. */
export function unpackOps(bytes: Buffer): DeltaOps {
  let at = 0;
  const read = (): number => {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (at >= bytes.length) throw new Error('delta operations end early');
      const b = bytes[at++]!;
      v += (b & 127) * scale;
      if (b < 128) return v;
      scale *= 128;
    }
  };
  const listEnd = read() + at;
  let text = listEnd;
  const ops: DeltaOps = [];
  let end = 0;
  while (at < listEnd) {
    const v = read();
    if (v % 2 === 1) {
      const n = (v - 1) / 2;
      ops.push(bytes.subarray(text, text + n).toString('utf8'));
      text += n;
      continue;
    }
    const z = read();
    const start = end + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
    ops.push([start, v / 2]);
    end = start + v / 2;
  }
  if (at !== listEnd || text !== bytes.length) throw new Error('delta operations do not add up');
  return ops;
}

function varint(out: number[], v: number): void {
  while (v >= 128) {
    out.push((v % 128) | 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

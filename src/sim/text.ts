import { createHash } from 'node:crypto';
import type { ChatMessage } from '../llm/index.js';

/** Text helpers shared by the simulated roles. */

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A copy of `text` that holds no reference to the string it was sliced from, for a memo's key: a
 * line split from a prompt (and any slice of the line) would keep the whole prompt alive.
 */
export function detached(text: string): string {
  // UTF-16 code units as they are: lossless for any string, lone surrogates too.
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/**
 * Whether `value` occurs in `text` as a whole token: not preceded or followed by
 * `[A-Za-z0-9_]`. So id `4821` is not "seen" inside `48213`, but is inside `"id":4821,`.
 */
export function containsToken(text: string, value: string): boolean {
  if (value === '') return false;
  // Memoized (issue #28): a compressor asks about every field of an observation against the same
  // evidence. The answer is exactly that of the regular expression
  // `(?<![A-Za-z0-9_])value(?![A-Za-z0-9_])` on `text`.
  if (text.length >= WORD_SET_MIN_CHARS && isWordRun(value)) return wordsOf(text).has(value);
  const after = value.length;
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
    if (!isWordCode(text.charCodeAt(at - 1)) && !isWordCode(text.charCodeAt(at + after))) {
      return true;
    }
  }
  return false;
}

/** `[A-Za-z0-9_]`, by UTF-16 code (NaN, outside the text, is none). */
function isWordCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95
  );
}

function isWordRun(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (!isWordCode(value.charCodeAt(i))) return false;
  return true;
}

/**
 * Texts at least this long are indexed once into the set of their maximal `[A-Za-z0-9_]` runs: a
 * value made only of such characters occurs as a whole token exactly when it is one of them.
 */
const WORD_SET_MIN_CHARS = 1024;
/** Indexed texts remembered, the most recent first out last. */
const WORD_SETS_KEPT = 8;
const wordSets = new Map<string, Set<string>>();

function wordsOf(text: string): Set<string> {
  const hit = wordSets.get(text);
  if (hit !== undefined) return hit;
  const words = new Set(text.split(/[^A-Za-z0-9_]+/));
  words.delete('');
  wordSets.set(text, words);
  if (wordSets.size > WORD_SETS_KEPT) wordSets.delete(wordSets.keys().next().value!);
  return words;
}

/**
 * The text of everything a model was sent that can carry a fact: system and user contents,
 * assistant tool-call arguments and tool results. Assistant reasoning is left out: it only
 * restates the arguments, and its step counters would make small numbers look "seen".
 */
export function seenText(messages: readonly ChatMessage[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      for (const call of m.tool_calls ?? []) parts.push(call.function.arguments);
    } else {
      parts.push(m.content);
    }
  }
  return parts.join('\n');
}

/**
 * The body between a line `<tag>` (attributes allowed) and the last line `</tag>` after it;
 * `undefined` when the opening tag is missing. Prompts put each marker on its own line, so
 * a tag-like string inside a value (a JSON string, say) does not end the section early.
 */
export function section(text: string, tag: string): string | undefined {
  const open = new RegExp(`^[ \\t]*<${escapeRegExp(tag)}(?:\\s[^>]*)?>[ \\t]*$`, 'm').exec(text);
  if (!open) return undefined;
  const start = open.index + open[0].length;
  const closeRe = new RegExp(`^[ \\t]*</${escapeRegExp(tag)}>[ \\t]*$`, 'gm');
  closeRe.lastIndex = start;
  let end = -1;
  for (let m = closeRe.exec(text); m; m = closeRe.exec(text)) end = m.index;
  const body = end === -1 ? text.slice(start) : text.slice(start, end);
  return body.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
}

/** Inline `<tag>body</tag>` on one line (or the multi-line form), trimmed. */
export function inlineSection(text: string, tag: string): string | undefined {
  const m = new RegExp(`<${escapeRegExp(tag)}>([\\s\\S]*?)</${escapeRegExp(tag)}>`).exec(text);
  return m ? (m[1] ?? '').trim() : section(text, tag)?.trim();
}

/** Parses JSON text, `undefined` when it is not JSON. */
export function tryParseJson(text: string): unknown {
  const t = text.trim();
  if (t === '' || !'{["-0123456789tfn'.includes(t[0] ?? '')) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Every top-level JSON object or array embedded in free text (a rendered history, say), in
 * order. Scans for balanced brackets outside strings and keeps the spans that parse.
 */
export function jsonSpans(text: string): unknown[] {
  const found: unknown[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch !== '{' && ch !== '[') {
      i++;
      continue;
    }
    const end = balancedEnd(text, i);
    if (end !== -1 && mayOpenJson(text, i)) {
      const parsed = tryParseJson(text.slice(i, end + 1));
      if (parsed !== undefined && typeof parsed === 'object' && parsed !== null) {
        found.push(parsed);
        i = end + 1;
        continue;
      }
    }
    i++;
  }
  return found;
}

/**
 * Whether JSON.parse could accept a value opening at `start` (`{` or `[`): the first character
 * after JSON whitespace must open a member or a value, or close the container. Saves the throw of
 * a `[Turn 3]` or `[app.api]` heading (issue #28).
 */
function mayOpenJson(text: string, start: number): boolean {
  let i = start + 1;
  while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  const next = text[i] ?? '';
  return text[start] === '{' ? next === '"' || next === '}' : ']{["-0123456789tfn'.includes(next);
}

function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** A scalar as the text it shows up as in JSON and arguments (`48213`, `Blue Train`, `12.5`). */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Leaves of a JSON value: its scalar fields with the key path to each (array indices skipped). */
export type Leaf = { path: string[]; value: string | number | boolean | null };

export function leaves(value: unknown, path: string[] = []): Leaf[] {
  if (Array.isArray(value)) return value.flatMap((v) => leaves(v, path));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
      leaves(v, [...path, k]),
    );
  }
  if (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  ) {
    return [{ path, value }];
  }
  return [];
}

/** A short stable hash, for keying PRNGs by text. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Cuts `text` to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * A long opaque string: 32 characters or more with no space, slash or `@`, letters and digits
 * both (an access token, a hash, a UUID), not a path, a url, an address or prose.
 */
export function isOpaque(value: string): boolean {
  return /^[^\s/@]{32,}$/.test(value) && /[A-Za-z]/.test(value) && /\d/.test(value);
}

/** How a brief summary writes a long opaque string: its opening and an ellipsis (`atk_0RD0…`). */
export function abbreviate(value: string): string {
  return `${value.slice(0, 8)}…`;
}

/**
 * A value the writer cut short: no space, ending in an ellipsis (`atk_0RD0…`, a url cut at 80
 * characters). A reader knows it holds only part of the value and cannot pass it on.
 */
export function isAbbreviated(value: string): boolean {
  return value.length > 1 && value.endsWith('…') && !/\s/.test(value);
}

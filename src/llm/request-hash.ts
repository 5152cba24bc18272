import { createHash, hash as oneShotHash, type Hash } from 'node:crypto';
import type { ChatMessage, ChatRequest, ToolDef } from './types.js';

/** Everything that determines a model's answer; the call cache is keyed by its hash. */
export type HashedRequest = {
  provider: string;
  model: string;
  messages: readonly ChatMessage[];
  tools?: readonly ToolDef[] | undefined;
  responseFormat?: ChatRequest['responseFormat'];
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  seed?: number | undefined;
  limitParam?: string | undefined;
  reasoningEffort?: string | undefined;
};

/** Bump when the encoding changes, so old cache entries stop matching instead of colliding. */
const ENCODING_VERSION = 'acon-request-v2';

/**
 * sha256 (hex) of a canonical encoding of the request's answer-determining fields: object keys
 * sorted at every level, keys set to `undefined` left out, array order kept, no tools the same
 * as an empty tool list; messages and the tool list each by the digest of their own encoding.
 *
 * The encoding is JSON's structure with strings written raw behind their length instead of
 * JSON-escaped: it is computed on every call over the whole history, and escaping a 120 kB
 * history took 0.3 ms against 0.1 ms for hashing it (measured on Node 20).
 */
export function requestHash(
  req: HashedRequest,
  digests: RequestDigests = new RequestDigests(),
): string {
  const { provider, model, messages, tools, responseFormat, temperature, maxTokens, seed } = req;
  const { limitParam, reasoningEffort } = req;
  const toolList = tools && tools.length > 0 ? tools : undefined;
  // canonicalText of {provider, model, messages, tools, …}, written in its sorted key order
  // directly: the messages as their remembered `s64:<digest>` pieces, with no key object, entry
  // sort or piece per message built per call (issue #28). A test compares it with canonicalText.
  const fields: [string, unknown][] = [
    // `max_tokens` (the old default) is left out, so entries cached before it was named match.
    ['limitParam', limitParam === 'max_tokens' ? undefined : limitParam],
    ['maxTokens', maxTokens],
    ['messages', messages],
    ['model', model],
    ['provider', provider],
    ['reasoningEffort', reasoningEffort],
    ['responseFormat', responseFormat],
    ['seed', seed],
    ['temperature', temperature],
    ['tools', toolList && digests.of(digests.tools, toolList)],
  ];
  const set = fields.filter(([, v]) => v !== undefined);
  const parts = [`${ENCODING_VERSION}{${set.length}:`];
  for (const [key, value] of set) {
    canonicalParts(key, parts);
    if (key === 'messages') {
      parts.push(`[${messages.length}:`);
      for (const m of messages) parts.push(digests.of(digests.messages, m));
    } else if (key === 'tools') {
      parts.push(value as string);
    } else {
      canonicalParts(value, parts);
    }
  }
  return sha256Hex(parts.join(''));
}

/**
 * Each message enters the request's hash as its own digest, remembered per message object: a
 * prompt repeats the trajectory's messages step after step (nothing changes a message once it
 * was sent), so only a step's new messages are hashed (issue #16). An LLM client keeps one.
 */
export class RequestDigests {
  readonly messages = new WeakMap<object, string>();
  readonly tools = new WeakMap<object, string>();

  /** The canonical piece of a message's or tool list's digest (`s64:<hex>`), once per object. */
  of(cache: WeakMap<object, string>, value: object): string {
    let d = cache.get(value);
    if (d === undefined) {
      const parts: string[] = [];
      canonicalParts(value, parts);
      const hex = sha256OfParts(parts);
      d = `s${hex.length}:${hex}`;
      cache.set(value, d);
    }
    return d;
  }
}

/**
 * sha256 (hex) of the parts' concatenation. A long text (a compressor's prompt, tens of KB, new
 * at every call) is hashed part by part rather than joined into a copy first; the bytes hashed
 * are the same (see writeCanonical). Short ones are joined: a Hash object costs more than the copy.
 */
function sha256OfParts(parts: readonly string[]): string {
  let length = 0;
  for (const part of parts) length += part.length;
  if (length < LONG_TEXT) return sha256Hex(parts.join(''));
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}
const LONG_TEXT = 16 * 1024;

/**
 * Writes `value` to `hash` unambiguously: every string and container carries its length. The
 * pieces are gathered and hashed in one update; the bytes are the same as piece by piece (our
 * separators are ASCII, so no two strings' halves of a surrogate pair ever meet), and one update
 * instead of two per message costs a tenth as much for a long prompt.
 */
export function writeCanonical(hash: Hash, value: unknown): void {
  hash.update(canonicalText(value));
}

/** The canonical encoding of `value` that writeCanonical hashes. */
function canonicalText(value: unknown): string {
  const parts: string[] = [];
  canonicalParts(value, parts);
  return parts.join('');
}

/**
 * sha256 of a string's UTF-8 bytes, in hex. One-shot: a Hash object per digest cost more than
 * hashing a message did, and every call hashes its request and its new messages (issue #16).
 */
function sha256Hex(text: string): string {
  return oneShotHash('sha256', text, 'hex');
}

function canonicalParts(value: unknown, out: string[]): void {
  if (value === null || value === undefined) {
    out.push('n');
  } else if (typeof value === 'string') {
    out.push(`s${value.length}:`, value);
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    out.push(`${typeof value === 'number' ? 'd' : 'b'}${String(value)};`);
  } else if (Array.isArray(value)) {
    out.push(`[${value.length}:`);
    for (const item of value) canonicalParts(item, out);
  } else if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out.push(`{${entries.length}:`);
    for (const [k, v] of entries) {
      canonicalParts(k, out);
      canonicalParts(v, out);
    }
  } else {
    throw new TypeError(`cannot hash a ${typeof value} in an LLM request`);
  }
}

import { countTokens as countO200k, setMergeCacheSize } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatMessage, ToolDef } from './types.js';

/**
 * gpt-tokenizer remembers the merges of up to 100,000 text chunks by default, and ids, tokens and
 * amounts make most chunks of tool output new: an export of 16,000 history compressions grew the
 * heap by 25 MB with it (issue #16). 10,000 counts AppWorld-like JSON as fast as 100,000 does.
 */
setMergeCacheSize(10_000);

/**
 * Token counts for thresholds (T_obs, T_hist) and peak-token metrics, in the o200k_base
 * encoding of the GPT-4o/4.1 family. For other model families it is an estimate, which is all
 * the thresholds need.
 *
 * Called on every agent step over the whole history, so counts of longer strings are kept in
 * a small LRU: re-counting an unchanged history costs a few map look-ups.
 */

/**
 * Per-message framing of the chat format (`<|im_start|>role<|im_sep|>…<|im_end|>`) and the
 * priming of the reply, from OpenAI's cookbook "How to count tokens with tiktoken".
 */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;
/** Framing of one tool call (id, type and name wrapper) and of one tool definition; estimates. */
const TOKENS_PER_TOOL_CALL = 3;
const TOKENS_PER_TOOL_DEF = 8;
const TOKENS_FOR_TOOLS_BLOCK = 12;

/** Special tokens such as `<|endoftext|>` in tool output are counted as plain text, never thrown on. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Strings shorter than this are cheaper to count than to look up. */
const MIN_CACHED_LENGTH = 64;

/**
 * Characters of the cached strings, at most: the cache keeps its keys alive, and an export of
 * hundreds of thousands of long compressor prompts would otherwise hold hundreds of MB (issue #16).
 */
const MAX_CACHED_CHARS = 8 * 1024 * 1024;

export type TokenCounter = {
  countTokens(text: string): number;
  countMessageTokens(messages: readonly ChatMessage[], tools?: readonly ToolDef[]): number;
};

/**
 * A counter with its own bounded cache.
 * @param cacheSize strings whose counts are remembered (least recently used are evicted)
 * @param maxChars characters of those strings together, at most
 * @default cacheSize 16384
 * @default maxChars MAX_CACHED_CHARS (8 Mi)
 */
export function createTokenCounter(cacheSize = 16384, maxChars = MAX_CACHED_CHARS): TokenCounter {
  const cache = new Map<string, number>();
  let cachedChars = 0;

  function countTokens(text: string): number {
    if (text.length === 0) return 0;
    if (text.length < MIN_CACHED_LENGTH) return countO200k(text, PLAIN_TEXT);
    const hit = cache.get(text);
    if (hit !== undefined) {
      // Re-insert so the Map's insertion order doubles as recency order.
      cache.delete(text);
      cache.set(text, hit);
      return hit;
    }
    const n = countO200k(text, PLAIN_TEXT);
    if (text.length > maxChars / 4) return n;
    cache.set(text, n);
    cachedChars += text.length;
    for (const oldest of cache.keys()) {
      if (cache.size <= cacheSize && cachedChars <= maxChars) break;
      cache.delete(oldest);
      cachedChars -= oldest.length;
    }
    return n;
  }

  /**
   * Counts per message and per tool list object: a prompt repeats the trajectory's message
   * objects step after step, and nothing changes a message once it is in a trajectory, so each
   * is counted once however many prompts and rollouts hold it (the string LRU alone thrashed at
   * 64 rollouts in flight; issue #16).
   */
  const messageCounts = new WeakMap<ChatMessage, number>();
  const toolCounts = new WeakMap<readonly ToolDef[], number>();

  function messageTokens(m: ChatMessage): number {
    const hit = messageCounts.get(m);
    if (hit !== undefined) return hit;
    let n = TOKENS_PER_MESSAGE + countTokens(m.role) + countTokens(m.content ?? '');
    if (m.role === 'assistant' && m.tool_calls) {
      for (const call of m.tool_calls) {
        n +=
          TOKENS_PER_TOOL_CALL +
          countTokens(call.function.name) +
          countTokens(call.function.arguments);
      }
    }
    messageCounts.set(m, n);
    return n;
  }

  function toolTokens(tools: readonly ToolDef[]): number {
    const hit = toolCounts.get(tools);
    if (hit !== undefined) return hit;
    let n = TOKENS_FOR_TOOLS_BLOCK;
    for (const t of tools) n += TOKENS_PER_TOOL_DEF + countTokens(JSON.stringify(t.function));
    toolCounts.set(tools, n);
    return n;
  }

  function countMessageTokens(messages: readonly ChatMessage[], tools?: readonly ToolDef[]) {
    let total = TOKENS_PER_REPLY;
    for (const m of messages) total += messageTokens(m);
    if (tools && tools.length > 0) total += toolTokens(tools);
    return total;
  }

  return { countTokens, countMessageTokens };
}

const shared = createTokenCounter();

/** Tokens of a plain string (o200k_base). */
export const countTokens: (text: string) => number = shared.countTokens;

/**
 * Tokens of a chat prompt as the model sees it: message contents, roles, the chat framing,
 * tool-call names and arguments, and the tool definitions when given.
 * @example countMessageTokens([{ role: 'user', content: 'hi' }]) // 8
 */
export const countMessageTokens: (
  messages: readonly ChatMessage[],
  tools?: readonly ToolDef[],
) => number = shared.countMessageTokens;

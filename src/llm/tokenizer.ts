import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as HfTokenizers from '@huggingface/tokenizers';
import type * as O200kModule from 'gpt-tokenizer/encoding/o200k_base';
import type { LocalTokenizerName, TokenizerName } from '../config/index.js';
import { ConfigError } from '../errors.js';
import { frameMessage, frameTools, TOKENS_PER_REPLY } from './chat-framing.js';
import type { ChatMessage, ToolDef } from './types.js';

type Encoding = typeof O200kModule;

/** gpt-tokenizer's module of each encoding acon counts with. */
const ENCODING_MODULES = {
  o200k: 'gpt-tokenizer/encoding/o200k_base',
  cl100k: 'gpt-tokenizer/encoding/cl100k_base',
} as const;

type Count = (text: string) => number;

/**
 * Each encoding, loaded when its first text is counted: o200k_base's 2.3 MB of rank tables cost
 * 0.2 s of CPU, which commands that count nothing (`tasks`, `runs`, `report`, `guidelines`) need
 * not pay (issue #28). Loaded synchronously (CommonJS builds), so counting stays synchronous.
 * An encoding is immutable data, shared by every counter of the process like a module.
 */
const encodings = new Map<LocalTokenizerName, Count>();

function encoder(name: LocalTokenizerName): Count {
  const loaded = encodings.get(name);
  if (loaded !== undefined) return loaded;
  const count = name.startsWith('hf:')
    ? huggingFaceCount(name.slice('hf:'.length))
    : gptTokenizerCount(ENCODING_MODULES[name as keyof typeof ENCODING_MODULES]);
  encodings.set(name, count);
  return count;
}

/**
 * Reads a Hugging Face tokenizer now, so that a wrong `hf:` path stops a command before it
 * stores anything; the gpt-tokenizer encodings stay lazy (they ship with acon).
 */
export function checkTokenizer(name: LocalTokenizerName): void {
  if (name.startsWith('hf:')) encoder(name);
}

function gptTokenizerCount(module: string): Count {
  const encoding = createRequire(import.meta.url)(module) as Encoding;
  // gpt-tokenizer remembers the merges of up to 100,000 text chunks by default, and ids, tokens
  // and amounts make most chunks of tool output new: an export of 16,000 history compressions
  // grew the heap by 25 MB with it (issue #16). 10,000 counts AppWorld-like JSON as fast.
  encoding.setMergeCacheSize(10_000);
  return (text) => encoding.countTokens(text, PLAIN_TEXT);
}

/**
 * A model's own tokenizer from its Hugging Face `tokenizer.json` (and the `tokenizer_config.json`
 * beside it, when there is one), read with `@huggingface/tokenizers`. Special tokens the
 * tokenizer would add (a BOS) are not counted: the chat framing is counted apart.
 */
function huggingFaceCount(path: string): Count {
  const json = readJson(path, `tokenizer hf:${path}`);
  const beside = join(dirname(path), 'tokenizer_config.json');
  const config = existsSync(beside) ? readJson(beside, `tokenizer hf:${path}`) : {};
  const { Tokenizer } = createRequire(import.meta.url)(
    '@huggingface/tokenizers',
  ) as typeof HfTokenizers;
  let tokenizer: InstanceType<typeof Tokenizer>;
  try {
    tokenizer = new Tokenizer(json, config);
  } catch (err) {
    throw new ConfigError(
      path,
      `tokenizer hf:${path}`,
      `not a tokenizer.json that @huggingface/tokenizers can read (${err instanceof Error ? err.message : String(err)}); give the file the model ships with, or o200k / cl100k`,
    );
  }
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length;
}

function readJson(path: string, setting: string): object {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new ConfigError(
      path,
      setting,
      "no such file (paths are relative to the working directory); give the model's tokenizer.json, or o200k / cl100k",
    );
  }
  try {
    return JSON.parse(text) as object;
  } catch {
    throw new ConfigError(path, setting, "not JSON; give the model's tokenizer.json");
  }
}

/**
 * Token counts for thresholds (T_obs, T_hist) and peak-token metrics, in the o200k_base
 * encoding of the GPT-4o/4.1 family. For other model families it is an estimate, which is all
 * the thresholds need.
 *
 * Called on every agent step over the whole history, so counts of longer strings (and lines) are
 * kept in a bounded cache: re-counting an unchanged history costs a few map look-ups.
 */

/** Special tokens such as `<|endoftext|>` in tool output are counted as plain text, never thrown on. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Lines shorter than this are counted together with their neighbours rather than remembered. A
 * summary's fact lines (`- id=4821 | title=Blue Train`) are 20-60 characters and come back in
 * every later prompt and compressor call, so they are worth remembering (issue #28): a hit costs a
 * tenth of counting, a miss about 1.5 times.
 */
const MIN_CACHED_LENGTH = 16;

/**
 * Characters of the cached strings, at most: the cache keeps its keys alive, and an export of
 * hundreds of thousands of long compressor prompts would otherwise hold hundreds of MB (issue #16).
 */
const MAX_CACHED_CHARS = 8 * 1024 * 1024;

/**
 * Short texts (roles, tool names) and runs of short lines (`FACTS:`, `[shop.login]`, a closing
 * `}`) are few and come back all the time: the README optimize counted 700,000 of them, fewer
 * than 500 distinct, each through the whole encoder (issue #28). Those up to this many characters
 * are remembered in a small map of their own, emptied when it holds SMALL_ENTRIES.
 */
const SMALL_CHARS = 256;
const SMALL_ENTRIES = 4096;

export type TokenCounter = {
  /** The encoding it counts in, named in every figure's provenance. */
  readonly tokenizer?: TokenizerName;
  countTokens(text: string): number;
  countMessageTokens(messages: readonly ChatMessage[], tools?: readonly ToolDef[]): number;
  /**
   * Makes the counts of these texts synchronous lookups: a counter that asks a server
   * (server-tokenizer.ts) fetches the ones it does not have. Absent on in-process encodings.
   */
  prepare?(texts: readonly string[]): Promise<void>;
  /**
   * Distinct texts counted in a stand-in encoding because the counter's own count was not there
   * (a server's, not fetched or failed), and distinct texts counted in all: figures say "12 of
   * 340 counts estimated". Absent where every count is the encoding's own.
   */
  readonly estimated?: number;
  readonly counted?: number;
};

/**
 * Whether a text may be cut before a character with this code, right after a line feed, so that
 * the count of the whole is the sum of the counts of the two sides. o200k_base first
 * splits text with a regular expression (no look-behind; its only look-ahead is `\s+(?!\S)`)
 * and counts each match on its own. A match that takes the line feed ends there unless the next
 * character continues it: whitespace (`\s*[\r\n]+`, `\s+`) or `/` (`[^\s\p{L}\p{N}]+[\r\n/]*`).
 * Before any other character the split of the whole is the split of the left side followed by
 * the split of the right side, so each line of a text can be counted, and remembered, apart.
 * Only printable ASCII is taken, the rest (other whitespace among it) never starts a cut.
 * cl100k_base's expression has the same alternatives with fewer continuations (its punctuation
 * run takes `[\r\n]*`, no `/`), so the same cuts hold for it.
 */
function startsPiece(code: number): boolean {
  return code > 0x20 && code < 0x7f && code !== 0x2f;
}

/**
 * A copy of `text` that holds no reference to the string it was sliced from: a cached slice would
 * keep the whole prompt it came from alive.
 */
function detached(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/**
 * The o200k count of `text` as the sum over its pieces (cut where `startsPiece` allows): pieces of
 * at least `minPiece` characters are counted by `countPiece`, runs of shorter ones by `countRun`.
 */
function countByPieces(
  text: string,
  minPiece: number,
  countPiece: (piece: string) => number,
  countRun: (run: string) => number,
): number {
  let total = 0;
  // [start, cut) is the current piece; [pending, start) shorter pieces not counted yet.
  let pending = 0;
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    const cut = nl + 1;
    if (cut === text.length || !startsPiece(text.charCodeAt(cut))) continue;
    if (cut - start >= minPiece) {
      if (pending < start) total += countRun(text.slice(pending, start));
      total += countPiece(text.slice(start, cut));
      pending = cut;
    }
    start = cut;
  }
  if (start === 0) return countPiece(text);
  if (text.length - start >= minPiece) {
    if (pending < start) total += countRun(text.slice(pending, start));
    return total + countPiece(text.slice(start));
  }
  return total + countRun(text.slice(pending));
}

/**
 * A counter with its own bounded cache.
 *
 * A text is counted line by line where the encoding allows it (`startsPiece`), and the counts of
 * lines of at least `minPiece` characters are remembered: prompts repeat the same observations,
 * summaries and instructions in new surroundings step after step, so a new prompt costs the
 * tokenizer only its new lines (issue #28). The result is exactly the count of the whole text.
 * @param cacheSize strings whose counts are remembered (the oldest are evicted first)
 * @param maxChars characters of those strings together, at most
 * @param minPiece characters a line needs to be remembered on its own; shorter neighbouring lines
 *   are counted together
 * @default cacheSize 65536
 * @default maxChars MAX_CACHED_CHARS (8 Mi)
 * @default minPiece MIN_CACHED_LENGTH (16)
 * @default tokenizer 'o200k'
 */
export function createTokenCounter(
  cacheSize = 65_536,
  maxChars = MAX_CACHED_CHARS,
  minPiece = MIN_CACHED_LENGTH,
  tokenizer: LocalTokenizerName = 'o200k',
): TokenCounter {
  const count = (text: string) => encoder(tokenizer)(text);
  // The line cuts (startsPiece) hold for the pre-tokenizers of o200k and cl100k; a Hugging Face
  // tokenizer's may join a line feed to what follows (SentencePiece's metaspace), so its texts
  // are counted whole (each message once all the same: messageTokens).
  if (tokenizer.startsWith('hf:')) minPiece = Number.POSITIVE_INFINITY;
  const cache = new Map<string, number>();
  let cachedChars = 0;
  const small = new Map<string, number>();

  /** A short text or a run of short lines, from the small map or counted (and remembered). */
  function countRun(text: string): number {
    if (text.length > SMALL_CHARS) return count(text);
    const hit = small.get(text);
    if (hit !== undefined) return hit;
    const n = count(text);
    if (small.size >= SMALL_ENTRIES) small.clear();
    small.set(detached(text), n);
    return n;
  }

  function remember(text: string, n: number): void {
    if (text.length > maxChars / 4) return;
    cache.set(detached(text), n);
    cachedChars += text.length;
    if (cache.size <= cacheSize && cachedChars <= maxChars) return;
    // The oldest go in one pass, down to 3/4 of both limits: a pass per insertion (a fresh
    // iterator over a map whose head is all deleted slots) cost more than the counting it saved.
    for (const oldest of cache.keys()) {
      if (cache.size <= (cacheSize * 3) / 4 && cachedChars <= (maxChars * 3) / 4) break;
      cache.delete(oldest);
      cachedChars -= oldest.length;
    }
  }

  /**
   * A piece that stands alone in the count: from the cache, else counted and remembered (a copy
   * of it: the piece may be a slice of a whole prompt). A hit is not re-inserted, so the oldest
   * entries go first: re-inserting would key the entry by the new slice and keep its prompt alive.
   */
  function countPiece(piece: string): number {
    const hit = cache.get(piece);
    if (hit !== undefined) return hit;
    const n = count(piece);
    remember(piece, n);
    return n;
  }

  function countTokens(text: string): number {
    if (text.length === 0) return 0;
    if (text.length < minPiece) return countRun(text);
    return countByPieces(text, minPiece, countPiece, countRun);
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
    const n = frameMessage(m, countTokens);
    messageCounts.set(m, n);
    return n;
  }

  function toolTokens(tools: readonly ToolDef[]): number {
    const hit = toolCounts.get(tools);
    if (hit !== undefined) return hit;
    const n = frameTools(tools, countTokens);
    toolCounts.set(tools, n);
    return n;
  }

  function countMessageTokens(messages: readonly ChatMessage[], tools?: readonly ToolDef[]) {
    let total = TOKENS_PER_REPLY;
    for (const m of messages) total += messageTokens(m);
    if (tools && tools.length > 0) total += toolTokens(tools);
    return total;
  }

  return { tokenizer, countTokens, countMessageTokens };
}

/** A counter in `tokenizer`'s encoding: the shared o200k one, or a new one with its own cache. */
export function tokenCounterFor(tokenizer: LocalTokenizerName): TokenCounter {
  return tokenizer === 'o200k'
    ? shared
    : createTokenCounter(undefined, undefined, undefined, tokenizer);
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

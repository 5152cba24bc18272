/**
 * acon's public library: learned ACON guidelines applied to an agent's messages at run time.
 *
 * @example
 * import { createContextCompressor, loadGuidelines } from 'acon';
 * const compressor = createContextCompressor({
 *   guidelines: await loadGuidelines('obs@active,hist@active', { dir: 'guidelines' }),
 *   model: { baseURL: 'http://127.0.0.1:8000/v1', model: 'acon-student' },
 * });
 * const messages = await compressor.compress(conversation);
 */
import type { CallStore } from '../llm/index.js';
import { cacheOnly, LruCallCache } from './lru-call-cache.js';
import { createCompressorLlm, isSimulatedModel, type CompressorModel } from './compressor-llm.js';
import {
  createContextCompressorWith,
  type CompressionReport,
  type ContextCompressor,
  type Thresholds,
} from './context-compressor.js';
import type { Guidelines } from './load-guidelines.js';
import { runtimeTokenCounter, type TokenizerOption } from './tokenizer-option.js';

export type ContextCompressorOptions = {
  /** From {@link loadGuidelines}. */
  guidelines: Guidelines;
  /**
   * The compressor model: the teacher or a distilled student, any OpenAI-compatible endpoint;
   * a framework's own model (`{ provider: 'custom', … }`, built by each adapter from its
   * framework's model object); or `{ provider: 'sim' }` to try acon offline (reports say
   * `simulated: true`).
   */
  model: CompressorModel;
  /** @default { obs: 1024, hist: 4096, keepLast: 1 } (ACON's T_obs, T_hist, k) */
  thresholds?: Thresholds;
  /**
   * The agent model's tokenizer, which the thresholds and the reports count in: `o200k`,
   * `cl100k`, `hf:PATH/tokenizer.json`, or `{ server: baseURL }` for vLLM's and SGLang's
   * `/tokenize`. Each report names it (`report.tokenizer`). @default 'o200k'
   */
  tokenizer?: TokenizerOption;
  /**
   * Where compressions are cached by a hash of the compressor request: in memory, or also in
   * the call cache of an acon SQLite database (shared with `acon run` and `acon optimize`).
   * `sqlite` needs better-sqlite3 (an optional dependency of acon): it is loaded on the first
   * `compress`, so the library runs without it when this is not set.
   * @default { memory: 10000 } entries
   */
  cache?: { memory?: number; sqlite?: string };
  /** Told after every call what was compressed and how many tokens it saved. */
  onReport?: (report: CompressionReport) => void;
  /**
   * A compressor failure returns the messages uncompressed (`'passthrough'`, reported with
   * `error`) or rejects (`'throw'`). @default 'passthrough'
   */
  onError?: 'passthrough' | 'throw';
};

/** A compressor with its resources; `close()` releases a SQLite cache. */
export type ClosableContextCompressor = ContextCompressor & { close(): void };

/**
 * ACON at run time (arXiv 2510.00615): `compress(messages)` compresses tool results over T_obs
 * with the observation guideline and folds the history over T_hist with the history guideline,
 * keeping the system prompt, the task and the last k turns verbatim and every tool call with its
 * result. The caller passes the whole conversation each time; nothing else is remembered from
 * its side.
 */
export function createContextCompressor(opts: ContextCompressorOptions): ClosableContextCompressor {
  // Built once: a server's counts and an hf: file's vocabulary serve every call.
  const tokens = runtimeTokenCounter(opts.tokenizer);
  const build = (store: CallStore) =>
    createContextCompressorWith({
      llm: createCompressorLlm(opts.model, store),
      guidelines: opts.guidelines,
      tokens,
      simulated: isSimulatedModel(opts.model),
      ...(opts.thresholds ? { thresholds: opts.thresholds } : {}),
      ...(opts.onReport ? { onReport: opts.onReport } : {}),
      ...(opts.onError ? { onError: opts.onError } : {}),
    });
  const path = opts.cache?.sqlite;
  if (!path) {
    return { ...build(new LruCallCache(opts.cache?.memory ?? 10_000)), close: () => {} };
  }
  // The SQLite cache is opened on the first call: `import('../store/index.js')` loads
  // better-sqlite3, which a consumer who keeps the cache in memory need not install.
  let closed = false;
  let db: { close(): void } | undefined;
  let ready: Promise<ContextCompressor> | undefined;
  const compressor = () =>
    (ready ??= import('../store/index.js').then(({ openRunStore }) => {
      if (closed) throw new Error('acon: this context compressor was closed; create a new one');
      const store = openRunStore(path);
      db = store;
      return build(cacheOnly(store));
    }));
  return {
    plan: async (messages, planOpts) => (await compressor()).plan(messages, planOpts),
    fold: async (messages, previous) => (await compressor()).fold(messages, previous),
    compress: async (messages) => (await compressor()).compress(messages),
    close: () => {
      closed = true;
      db?.close();
    },
  };
}

export { loadGuidelines, type Guidelines, type LoadGuidelinesOptions } from './load-guidelines.js';
export { applyPlan } from './context-compressor.js';
export type {
  CompressionPlan,
  CompressionReport,
  ContextCompressor,
  FoldResult,
  PlanOptions,
  RuntimeEvent,
  Thresholds,
} from './context-compressor.js';
export type { CompressorAnswer, CompressorCall, CustomCompressorModel } from './compressor-port.js';
export type {
  CompressorModel,
  OpenAiCompressorModel,
  SimCompressorModel,
} from './compressor-llm.js';
export type { TokenizerOption } from './tokenizer-option.js';
export type { OpenAiMessage } from './openai-messages.js';
export { indexTrajectory } from './openai-messages.js';
export { ExportTargetSchema, exportGuidelines } from './export-guidelines.js';
import type { RunningProxy, StartProxyOptions } from './proxy/start-proxy.js';
export type { RunningProxy, StartProxyOptions };

/**
 * Starts `acon proxy`'s server. Loaded on call: the HTTP server and its modules are not for
 * the library's other users, nor for a sim run that only replays (test/cli-startup.test.ts).
 */
export async function startProxy(opts: StartProxyOptions): Promise<RunningProxy> {
  const proxy = await import('./proxy/start-proxy.js');
  return proxy.startProxy(opts);
}

import type { Clock } from '../clock.js';
import { ConfigSchema } from '../config/index.js';
import {
  type CallStore,
  createLlmClient,
  type MeteredLlmClient,
  OpenAiProvider,
} from '../llm/index.js';
import { createSimProvider } from '../sim/index.js';
import { createPortCompressorLlm, type CustomCompressorModel } from './compressor-port.js';
import { oneModelConfig } from './one-model-config.js';

/**
 * The compressor's model: any OpenAI-compatible endpoint; a framework's model through a
 * {@link CustomCompressorModel} (the adapters build one from a LangChain `BaseChatModel`, an AI
 * SDK `LanguageModel` or an Agents SDK `Model`); or `{ provider: 'sim' }`, acon's deterministic
 * offline compressor (no server, no key; every report says `simulated: true`).
 */
export type CompressorModel = OpenAiCompressorModel | CustomCompressorModel | SimCompressorModel;

/** acon's simulated compressor: for trying the library and its adapters with no model at all. */
export type SimCompressorModel = { provider: 'sim' };

/** The compressor's model on any OpenAI-compatible endpoint (the teacher or a distilled student). */
export type OpenAiCompressorModel = {
  /** @default 'openai' */
  provider?: 'openai';
  /** @example 'http://127.0.0.1:8000/v1' (vLLM), 'https://api.openai.com/v1' */
  baseURL: string;
  /** @default process.env.OPENAI_API_KEY, else a placeholder (local servers without auth) */
  apiKey?: string;
  /** @example 'gpt-4.1-mini' */
  model: string;
  /** @default 0 */
  temperature?: number;
  /** Longest compressor answer. @default 4096 */
  maxTokens?: number;
  /** Retries of a failed request (429, 5xx, timeouts) with backoff. @default 2 */
  maxRetries?: number;
  /** @default 120000 */
  timeoutMs?: number;
  /** Requests in flight at once. @default 8 */
  concurrency?: number;
};

/** The variable the key is handed to the provider in (never a real environment variable). */
const KEY_VAR = 'ACON_COMPRESSOR_API_KEY';
const ENDPOINT = 'compressor';

/**
 * An LlmClient for the two compressor roles on one OpenAI-compatible endpoint, through acon's own
 * client (call cache, retries, concurrency limit) and provider (the `openai` package). The key
 * goes to the provider only; it is never part of a request record.
 */
export function createCompressorLlm(
  model: CompressorModel,
  store: CallStore,
  opts: { clock?: Pick<Clock, 'now' | 'sleep'>; env?: Record<string, string | undefined> } = {},
): MeteredLlmClient {
  if (model.provider === 'sim') return createSimCompressorLlm(store, opts.clock);
  if (model.provider === 'custom') return createPortCompressorLlm(model, store, opts.clock);
  const role = {
    model: model.model,
    endpoint: ENDPOINT,
    temperature: model.temperature ?? 0,
    max_tokens: model.maxTokens ?? 4096,
  };
  const config = oneModelConfig(role, {
    [ENDPOINT]: {
      base_url: model.baseURL,
      api_key_env: KEY_VAR,
      max_retries: model.maxRetries ?? 2,
      timeout_ms: model.timeoutMs ?? 120_000,
      concurrency: model.concurrency ?? 8,
    },
  });
  const env = opts.env ?? process.env;
  const apiKey = model.apiKey ?? env.OPENAI_API_KEY ?? 'no-key';
  const provider = new OpenAiProvider({ endpoints: config.endpoints, env: { [KEY_VAR]: apiKey } });
  return createLlmClient({
    config,
    providers: { openai: provider },
    store,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
}

function createSimCompressorLlm(
  store: CallStore,
  clock: Pick<Clock, 'now' | 'sleep'> | undefined,
): MeteredLlmClient {
  const config = ConfigSchema.parse({ provider: 'sim', prices: {} });
  // The compressor roles never ask for a reference plan (only the simulated agent does).
  const sim = createSimProvider({
    seed: 0,
    refetchLimit: 0,
    planFor: (taskId) =>
      Promise.reject(new Error(`the sim compressor has no agent (task ${taskId})`)),
  });
  return createLlmClient({
    config,
    providers: { sim },
    store,
    ...(clock ? { clock } : {}),
  });
}

/** Whether the compressor is acon's simulation (its reports are labelled SIMULATED). */
export function isSimulatedModel(model: CompressorModel): model is SimCompressorModel {
  return model.provider === 'sim';
}

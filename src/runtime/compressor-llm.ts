import { ConfigSchema } from '../config/schema.js';
import type { CallStore } from '../llm/call-store.js';
import { createLlmClient, type MeteredLlmClient } from '../llm/client.js';
import type { Clock } from '../llm/clock.js';
import { OpenAiProvider } from '../llm/openai-provider.js';

/** The compressor's model on any OpenAI-compatible endpoint (the teacher or a distilled student). */
export type CompressorModel = {
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
  opts: { clock?: Clock; env?: Record<string, string | undefined> } = {},
): MeteredLlmClient {
  const role = {
    model: model.model,
    endpoint: ENDPOINT,
    temperature: model.temperature ?? 0,
    max_tokens: model.maxTokens ?? 4096,
  };
  const config = ConfigSchema.parse({
    provider: 'openai',
    roles: {
      agent: role,
      obs_compressor: role,
      hist_compressor: role,
      analyzer: role,
      updater: role,
    },
    endpoints: {
      [ENDPOINT]: {
        base_url: model.baseURL,
        api_key_env: KEY_VAR,
        max_retries: model.maxRetries ?? 2,
        timeout_ms: model.timeoutMs ?? 120_000,
        concurrency: model.concurrency ?? 8,
      },
    },
    prices: {},
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

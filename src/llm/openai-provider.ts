import type OpenAI from 'openai';
import { z } from 'zod';
import type * as OpenAiSdk from 'openai';
import type { Endpoint } from '../config/index.js';
import { ConfigError, ProviderError } from '../errors.js';
import { parseChatCompletion } from './openai-response.js';
import { withLinkedSignal } from './linked-signal.js';
import { urlCredentials, redactUrlCredentials } from '../url-credentials.js';
import { redact, redactMessage } from './redact.js';
import { countMessageTokens, countTokens } from './tokenizer.js';
import { BodyPool } from './body-pool.js';
import {
  nodeHttpTransport,
  sdkTransport,
  TRANSPORTS,
  type Transport,
  type TransportName,
} from './transport.js';
import type { LlmProvider, ProviderRequest, ProviderResponse, TokenizeRequest } from './types.js';

export type OpenAiProviderOptions = {
  /** `config.endpoints`: name → base URL(s), key variable, timeout. */
  endpoints: Record<string, Endpoint>;
  /** Where API keys are read from. @default process.env */
  env?: Record<string, string | undefined>;
  /**
   * Passed to the `openai` client (with the `sdk` transport); tests may intercept requests with it.
   */
  fetch?: typeof fetch;
  /**
   * What carries the bytes (see transport.ts); `ACON_TRANSPORT` in `env` when not given.
   * @default DEFAULT_TRANSPORT
   */
  transport?: TransportName;
};

/** Chosen by `npm run bench:throughput -- --transports sdk,node-http` (see transport.ts). */
export const DEFAULT_TRANSPORT: TransportName = 'node-http';

type Backend = { baseURL: string; client: OpenAI | null; inFlight: number; options: ClientOptions };
type ClientOptions = ConstructorParameters<typeof OpenAI>[0];

type EndpointState = { name: string; endpoint: Endpoint; key: string; backends: Backend[] };

/**
 * The `openai` SDK, loaded at the first request: it is 150 modules, and every command that opens
 * a session builds this provider, sim runs and listings included (issue #28: CLI start-up).
 */
let sdk: Promise<typeof OpenAiSdk> | undefined;
const loadSdk = () => (sdk ??= import('openai'));

const DEFAULT_ENDPOINT = 'default';

/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Azure, vLLM, SGLang, Ollama,
 * llama.cpp, LM Studio) through the `openai` package. One attempt per call: retries, rate limits
 * and caching belong to the LlmClient, so the package's own retries are off.
 *
 * An endpoint with several base URLs (`base_url` + `extra_base_urls`) sends each request to the
 * URL with the fewest requests in flight. The API key is read when an endpoint is first used and
 * never appears in a returned value or an error.
 */
export class OpenAiProvider implements LlmProvider {
  readonly name = 'openai';
  readonly simulated = false;
  private readonly states = new Map<string, EndpointState>();
  private readonly env: Record<string, string | undefined>;
  private rotation = 0;
  private readonly transport: Transport;

  constructor(private readonly opts: OpenAiProviderOptions) {
    this.env = opts.env ?? process.env;
    this.transport = chooseTransport(opts, this.env);
  }

  async chat(req: ProviderRequest, signal?: AbortSignal): Promise<ProviderResponse> {
    const { default: OpenAIClient } = await loadSdk();
    const state = this.endpointState(req.endpoint ?? DEFAULT_ENDPOINT);
    const backend = this.pickBackend(state);
    const where = `endpoint "${state.name}" (${redactUrlCredentials(backend.baseURL)})`;
    const client = (backend.client ??= new OpenAIClient(backend.options));
    backend.inFlight++;
    let raw: unknown;
    try {
      // A signal of its own per request: the client adds an abort listener to the signal it is
      // given and never removes it (see linked-signal.ts).
      raw = await withLinkedSignal(signal, (requestSignal) =>
        this.transport.send(client, req, requestSignal),
      );
    } catch (err) {
      const { mapOpenAiError } = await import('./openai-errors.js');
      throw mapOpenAiError(err, where, state.endpoint.timeout_ms, this.keys());
    } finally {
      backend.inFlight--;
    }
    try {
      const parsed = parseChatCompletion(raw);
      const message = redactMessage(parsed.message, this.keys());
      return {
        message,
        usage: parsed.usage ?? estimateUsage(req, message.content),
        ...(parsed.finishReason !== undefined ? { finishReason: parsed.finishReason } : {}),
      };
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      throw new ProviderError(redact(`${where}: malformed response: ${text}`, this.keys()));
    }
  }

  /**
   * One text's count from the `/tokenize` route vLLM and SGLang serve at the server's root (not
   * under `/v1`): `{model, prompt, add_special_tokens: false}` answered by `{count, max_model_len,
   * tokens}` (vLLM's TokenizeCompletionRequest and TokenizeResponse; SGLang's take the same
   * fields). Sent by the same `openai` client as the chat calls, so key, timeout, fetch and error
   * mapping are the same; special tokens (a BOS) are left out as the chat framing is counted apart.
   */
  async tokenize(req: TokenizeRequest, signal?: AbortSignal): Promise<number> {
    const { default: OpenAIClient } = await loadSdk();
    const state = this.endpointState(req.endpoint ?? DEFAULT_ENDPOINT);
    const backend = this.pickBackend(state);
    const url = tokenizeUrl(backend.baseURL);
    const where = `endpoint "${state.name}" (${redactUrlCredentials(url)})`;
    const client = (backend.client ??= new OpenAIClient(backend.options));
    backend.inFlight++;
    let raw: unknown;
    try {
      raw = await withLinkedSignal(signal, (requestSignal) =>
        client.post<unknown>(url, {
          // vLLM's `model` is optional (the served model); an empty name would be refused as unknown.
          body: {
            ...(req.model ? { model: req.model } : {}),
            prompt: req.text,
            add_special_tokens: false,
          },
          signal: requestSignal,
        }),
      );
    } catch (err) {
      const { mapOpenAiError } = await import('./openai-errors.js');
      throw mapOpenAiError(err, where, state.endpoint.timeout_ms, this.keys());
    } finally {
      backend.inFlight--;
    }
    const parsed = TokenizeAnswerSchema.safeParse(raw);
    if (!parsed.success) {
      throw new ProviderError(
        redact(`${where}: malformed /tokenize answer (expected {count, tokens})`, this.keys()),
      );
    }
    return parsed.data.count ?? parsed.data.tokens!.length;
  }

  /**
   * The keys of the endpoints used so far, and the credentials written in their base URLs: what
   * an answer or an error must never carry onwards.
   */
  private keys(): string[] {
    return [...this.states.values()].flatMap((s) => [
      s.key,
      ...s.backends.flatMap((b) => urlCredentials(b.baseURL)),
    ]);
  }

  /** Requests in flight per base URL (for load balancing and tests). */
  inFlight(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of this.states.values()) for (const b of s.backends) out[b.baseURL] = b.inFlight;
    return out;
  }

  /** Throws the ConfigError the first call would (unknown endpoint, its key not set). */
  checkEndpoint(name: string): void {
    this.endpointState(name);
  }

  private endpointState(name: string): EndpointState {
    const known = this.states.get(name);
    if (known) return known;
    const endpoint = this.opts.endpoints[name];
    if (!endpoint) {
      const names = Object.keys(this.opts.endpoints).join(', ') || '(none)';
      throw new ConfigError(
        'acon.config.yaml',
        `endpoints.${name}`,
        `no endpoint named "${name}" (defined: ${names}); add it under endpoints or point the role's endpoint to one of them`,
      );
    }
    const key = this.env[endpoint.api_key_env];
    if (!key) {
      throw new ConfigError(
        'environment',
        `endpoints.${name}.api_key_env`,
        `${endpoint.api_key_env} is not set; export ${endpoint.api_key_env}=<your API key> (any non-empty value for a local server without auth), or set endpoints.${name}.api_key_env to the variable that holds the key`,
      );
    }
    const urls = [endpoint.base_url, ...endpoint.extra_base_urls];
    const backends = urls.map((baseURL) => ({
      baseURL,
      inFlight: 0,
      client: null,
      options: {
        baseURL,
        apiKey: key,
        // Retries are the LlmClient's (retry.ts says why not the client's own).
        maxRetries: 0,
        timeout: endpoint.timeout_ms,
        ...(this.transport.fetch ? { fetch: this.transport.fetch } : {}),
      },
    }));
    const state = { name, endpoint, key, backends };
    this.states.set(name, state);
    return state;
  }

  /** Fewest in flight; ties rotate so an idle pool is used evenly. */
  private pickBackend(state: EndpointState): Backend {
    const { backends } = state;
    const start = this.rotation++ % backends.length;
    let best = backends[start]!;
    for (let i = 1; i < backends.length; i++) {
      const b = backends[(start + i) % backends.length]!;
      if (b.inFlight < best.inFlight) best = b;
    }
    return best;
  }
}

/**
 * A test's `fetch` goes through the SDK's own path (a fetch given may keep the body, so no pooled
 * memory); else the option, else `ACON_TRANSPORT`, else the default.
 */
function chooseTransport(
  opts: OpenAiProviderOptions,
  env: Record<string, string | undefined>,
): Transport {
  if (opts.fetch) return sdkTransport(opts.fetch);
  const name = opts.transport ?? env.ACON_TRANSPORT ?? DEFAULT_TRANSPORT;
  if (name === 'sdk') return sdkTransport();
  if (name === 'node-http') return nodeHttpTransport(new BodyPool());
  throw new ConfigError(
    'environment',
    'ACON_TRANSPORT',
    `unknown transport "${name}"; use one of ${TRANSPORTS.join(', ')}`,
  );
}

/** What acon reads of a `/tokenize` answer: the count, or the token ids to count. */
const TokenizeAnswerSchema = z
  .looseObject({
    count: z.number().int().nonnegative().optional(),
    tokens: z.array(z.unknown()).optional(),
  })
  .refine((a) => a.count !== undefined || a.tokens !== undefined);

/** `/tokenize` on the server's root: the base URL without its `/v1` (vLLM, SGLang). */
export function tokenizeUrl(baseURL: string): string {
  return `${baseURL.replace(/\/+$/, '').replace(/\/v1$/, '')}/tokenize`;
}

/** Some local servers omit usage; count with the tokenizer instead of recording zeros. */
function estimateUsage(req: ProviderRequest, content: string | null) {
  return {
    promptTokens: countMessageTokens(req.messages, req.tools),
    cachedPromptTokens: 0,
    completionTokens: countTokens(content ?? ''),
  };
}

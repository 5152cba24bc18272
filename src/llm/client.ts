import type { Config, ProviderName } from '../config/schema.js';
import { AconError, BudgetExceededError, ConfigError, InterruptedError } from '../errors.js';
import type { CallRecord, CallStore } from './call-store.js';
import { systemClock, type Clock } from './clock.js';
import { costUsd } from './cost.js';
import { EndpointQueue } from './endpoint-queue.js';
import { requestHash } from './request-hash.js';
import { withRetry } from './retry.js';
import { countMessageTokens } from './tokenizer.js';
import type {
  CallContext,
  ChatRequest,
  ChatResult,
  LlmClient,
  LlmProvider,
  LlmRole,
  ProviderRequest,
  ProviderResponse,
  Usage,
} from './types.js';

export type CreateLlmClientOptions = {
  config: Config;
  /** Providers by config name; only those the roles use are needed. */
  providers: Partial<Record<ProviderName, LlmProvider>>;
  store: CallStore;
  /** `--no-cache`: never answer from the call cache (fresh answers are still written to it). */
  noCache?: boolean;
  /** @default the system clock */
  clock?: Clock;
  /** Jitter of retry backoff; seeded for reproducible runs. @default Math.random */
  random?: () => number;
  /** Spending limit in USD (`--budget-usd`); overrides `config.budget.usd`, `null` = none. */
  budgetUsd?: number | null;
  /** USD the run spent before this client existed (`--resume`); counts against the budget. @default 0 */
  priorSpentUsd?: number;
  /** Told about every recorded call, after it is stored (progress, logging). */
  onCall?: (call: CallRecord & { callId: number }) => void;
  /**
   * Aborts requests in flight and stops retries (Ctrl-C); calls then fail with InterruptedError
   * (still recorded).
   */
  signal?: AbortSignal;
};

export type LlmStats = {
  /** `chat()` calls, each recorded once. */
  calls: number;
  cacheHits: number;
  errors: number;
  /** Provider attempts, retries included (cache hits make none). */
  requests: number;
  promptTokens: number;
  cachedPromptTokens: number;
  completionTokens: number;
  /** USD spent through this client (without `priorSpentUsd`). */
  costUsd: number;
  /** Models called on a paid provider without an entry in `prices`; their cost counts as 0. */
  unpricedModels: string[];
  /** Calls answered by a simulated provider. */
  simulatedCalls: number;
};

/** The LlmClient plus its running totals. */
export type MeteredLlmClient = LlmClient & {
  /** USD spent so far, `priorSpentUsd` included (cache hits and simulated calls cost nothing). */
  spentUsd(): number;
  stats(): LlmStats;
};

type Resolved = {
  providerName: ProviderName;
  provider: LlmProvider | undefined;
  simulated: boolean;
  model: string;
  endpoint: string;
  request: ChatRequest & { model: string; temperature: number; maxTokens: number };
  hash: string;
};

const ZERO_USAGE: Usage = { promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0 };

/**
 * The LlmClient of a run. Per call: resolve the role's provider, model, endpoint and sampling
 * from the config; answer from the call cache when allowed (no request, cost 0); otherwise
 * check the budget, go through the endpoint's limits and the retry policy, price the usage,
 * cache the answer. Every call, failed ones included, is recorded in the store exactly once.
 *
 * Identical requests in flight at the same time are sent once: the later ones wait for the
 * first and count as cache hits. Caching means an identical request gets an identical answer,
 * at any temperature: to draw distinct samples of one prompt, vary `seed` or set `ctx.noCache`.
 *
 * Simulated providers are local: they bypass the cache, the HTTP limits and the retries, cost
 * nothing, and are still recorded.
 *
 * The budget is checked before each request, so calls already in flight may overshoot it by
 * their own cost.
 */
export function createLlmClient(opts: CreateLlmClientOptions): MeteredLlmClient {
  const { config, providers, store } = opts;
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? Math.random;
  const budget = opts.budgetUsd === undefined ? config.budget.usd : opts.budgetUsd;
  const prior = opts.priorSpentUsd ?? 0;
  const cacheOn = config.run.cache;
  const readCache = cacheOn && !opts.noCache;

  const isSimulated = (name: ProviderName) => providers[name]?.simulated ?? name === 'sim';
  checkEndpoints(config, isSimulated);

  const queues = new Map<string, EndpointQueue>();
  for (const [name, ep] of Object.entries(config.endpoints)) {
    queues.set(
      name,
      new EndpointQueue({ concurrency: ep.concurrency, rpm: ep.rpm, tpm: ep.tpm }, clock),
    );
  }

  const inFlight = new Map<string, Promise<ProviderResponse>>();
  const unpriced = new Set<string>();
  const stats: Omit<LlmStats, 'unpricedModels'> = {
    calls: 0,
    cacheHits: 0,
    errors: 0,
    requests: 0,
    promptTokens: 0,
    cachedPromptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    simulatedCalls: 0,
  };

  function resolve(req: ChatRequest, role: LlmRole): Resolved {
    const roleCfg = config.roles[role];
    const providerName = roleCfg.provider ?? config.provider;
    const model = roleCfg.model;
    const temperature = req.temperature ?? roleCfg.temperature;
    const maxTokens = req.maxTokens ?? roleCfg.max_tokens;
    const request = { ...req, model, temperature, maxTokens };
    const hash = requestHash({ provider: providerName, ...request });
    return {
      providerName,
      provider: providers[providerName],
      simulated: isSimulated(providerName),
      model,
      endpoint: roleCfg.endpoint,
      request,
      hash,
    };
  }

  async function send(r: Resolved, provider: LlmProvider, ctx: CallContext) {
    const preq: ProviderRequest = { ...r.request, ctx, endpoint: r.endpoint };
    if (r.simulated) {
      stats.requests++;
      return provider.chat(preq, opts.signal);
    }
    const queue = queues.get(r.endpoint)!;
    const endpoint = config.endpoints[r.endpoint]!;
    const tokens = queue.limitsTokens
      ? countMessageTokens(r.request.messages, r.request.tools) + r.request.maxTokens
      : undefined;
    return withRetry(
      () => {
        stats.requests++;
        return queue.run(() => provider.chat(preq, opts.signal), { tokens, signal: opts.signal });
      },
      {
        maxRetries: endpoint.max_retries,
        sleep: (ms, signal) => clock.sleep(ms, signal),
        now: () => clock.now(),
        random,
        signal: opts.signal,
      },
    );
  }

  async function answer(r: Resolved, ctx: CallContext) {
    const provider = r.provider;
    if (!provider) {
      throw new AconError(
        `no "${r.providerName}" provider was given to the LLM client for role ${ctx.role}; pass it in createLlmClient({ providers })`,
      );
    }
    const cacheable = readCache && !ctx.noCache && !r.simulated;
    if (cacheable) {
      const stored = store.getCached(r.hash);
      if (stored) return { response: stored, cached: true };
      const leader = inFlight.get(r.hash);
      // If the first identical request fails, this one makes its own attempt.
      const shared = leader && (await leader.catch(() => undefined));
      if (shared) return { response: shared, cached: true };
    }
    // No await from the cache check to registering in `inFlight`: an identical call started in
    // the same tick must find this one.
    const spent = prior + stats.costUsd;
    if (budget !== null && spent >= budget) throw new BudgetExceededError(spent, budget);
    const pending = send(r, provider, ctx);
    if (cacheable) {
      inFlight.set(r.hash, pending);
      // Followers handle the rejection; this only keeps the map clean.
      const forget = () => {
        if (inFlight.get(r.hash) === pending) inFlight.delete(r.hash);
      };
      pending.then(forget, forget);
    }
    const response = await pending;
    if (cacheOn && !r.simulated) store.putCached(r.hash, r.providerName, r.model, response);
    return { response, cached: false };
  }

  async function chat(req: ChatRequest, ctx: CallContext): Promise<ChatResult> {
    const started = clock.now();
    const r = resolve(req, ctx.role);
    let outcome: { response: ProviderResponse; cached: boolean } | undefined;
    let error: unknown;
    try {
      if (opts.signal?.aborted) throw new InterruptedError('interrupted before the LLM call');
      outcome = await answer(r, ctx);
    } catch (err) {
      // Whatever an abort looks like below (p-queue's AbortError, a ProviderError), say it once.
      const interrupted = opts.signal?.aborted && !(err instanceof InterruptedError);
      error = interrupted ? new InterruptedError('LLM call interrupted', { cause: err }) : err;
    }
    const latencyMs = Math.max(0, clock.now() - started);
    const usage = outcome?.response.usage ?? ZERO_USAGE;
    const price = config.prices[r.model];
    const billable = outcome !== undefined && !outcome.cached && !r.simulated;
    if (billable && !price) unpriced.add(r.model);
    const cost = billable ? costUsd(usage, price) : 0;

    const record: CallRecord = {
      ctx,
      provider: r.providerName,
      model: r.model,
      requestHash: r.hash,
      request: r.request,
      response: outcome?.response ?? null,
      usage,
      costUsd: cost,
      latencyMs,
      cached: outcome?.cached ?? false,
      error: error === undefined ? null : errorMessage(error),
    };
    const callId = store.recordCall(record);

    stats.calls++;
    stats.costUsd += cost;
    if (error !== undefined) stats.errors++;
    if (outcome?.cached) stats.cacheHits++;
    if (outcome && r.simulated) stats.simulatedCalls++;
    stats.promptTokens += usage.promptTokens;
    stats.cachedPromptTokens += usage.cachedPromptTokens;
    stats.completionTokens += usage.completionTokens;
    opts.onCall?.({ ...record, callId });

    if (error !== undefined || !outcome) throw error;
    return {
      message: outcome.response.message,
      usage,
      costUsd: cost,
      cached: outcome.cached,
      latencyMs,
      provider: r.providerName,
      model: r.model,
      callId,
    };
  }

  return {
    chat,
    spentUsd: () => prior + stats.costUsd,
    stats: () => ({ ...stats, unpricedModels: [...unpriced].sort() }),
  };
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/** Every role on an HTTP provider must name a defined endpoint; say which one does not. */
function checkEndpoints(config: Config, isSimulated: (name: ProviderName) => boolean): void {
  for (const [role, roleCfg] of Object.entries(config.roles)) {
    const provider = roleCfg.provider ?? config.provider;
    if (isSimulated(provider) || config.endpoints[roleCfg.endpoint]) continue;
    const names = Object.keys(config.endpoints).join(', ') || '(none)';
    throw new ConfigError(
      'acon.config.yaml',
      `roles.${role}.endpoint`,
      `endpoint "${roleCfg.endpoint}" is not defined (defined: ${names}); add it under endpoints or use one of those`,
    );
  }
}

import type { Config, ProviderName } from '../config/index.js';
import { AconError, BudgetExceededError, ConfigError, InterruptedError } from '../errors.js';
import type { CallRecord } from './call-store.js';
import type { CreateLlmClientOptions, LlmStats, MeteredLlmClient } from './client-options.js';
import { systemClock, type Clock } from '../clock.js';
import { costUsd } from './cost.js';
import { EndpointQueue } from './endpoint-queue.js';
import { samplingFor } from './model-family.js';
import { RequestDigests, requestHash } from './request-hash.js';
import { withRetry } from './retry.js';
import { countMessageTokens } from './tokenizer.js';
import { TokenizerCheck } from './tokenizer-check.js';
import { roleConfig } from './role-config.js';
import { tokenizerSetting } from './tokenizer-choice.js';
import type {
  CallContext,
  ChatRequest,
  ChatResult,
  LlmProvider,
  LlmRole,
  ProviderRequest,
  ProviderResponse,
  Usage,
} from './types.js';

type Resolved = {
  providerName: ProviderName;
  provider: LlmProvider | undefined;
  simulated: boolean;
  model: string;
  endpoint: string;
  request: ChatRequest & {
    model: string;
    maxTokens: number;
    limitParam: ProviderRequest['limitParam'];
    reasoningEffort?: ProviderRequest['reasoningEffort'];
  };
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
  const client = new MeteredClient(opts);
  return {
    chat: (req, ctx) => client.chat(req, ctx),
    tokenize: (role, text) => client.tokenize(role, text),
    spentUsd: () => client.spentUsd(),
    stats: () => client.stats(),
  };
}

type Outcome = { response: ProviderResponse; cached: boolean };

class MeteredClient {
  private readonly config: Config;
  private readonly clock: Pick<Clock, 'now' | 'sleep'>;
  /** Message and tool-list digests of this client's requests (see requestHash). */
  private readonly digests = new RequestDigests();
  private readonly random: () => number;
  private readonly budget: number | null;
  private readonly prior: number;
  private readonly cacheOn: boolean;
  private readonly readCache: boolean;
  private readonly queues = new Map<string, EndpointQueue>();
  private readonly inFlight = new Map<string, Promise<ProviderResponse>>();
  private readonly unpriced = new Set<string>();
  private readonly tokenizerCheck: TokenizerCheck | undefined;
  private readonly totals: Omit<LlmStats, 'unpricedModels'> = {
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

  constructor(private readonly opts: CreateLlmClientOptions) {
    const { config } = opts;
    this.config = config;
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
    this.budget = opts.budgetUsd === undefined ? config.budget.usd : opts.budgetUsd;
    this.prior = opts.priorSpentUsd ?? 0;
    this.cacheOn = config.run.cache;
    this.readCache = this.cacheOn && !opts.noCache;
    checkEndpoints(config, (name) => this.isSimulated(name));
    this.tokenizerCheck = opts.onWarning ? new TokenizerCheck(config, opts.onWarning) : undefined;
    for (const [name, ep] of Object.entries(config.endpoints)) {
      this.queues.set(
        name,
        new EndpointQueue({ concurrency: ep.concurrency, rpm: ep.rpm, tpm: ep.tpm }, this.clock),
      );
    }
  }

  spentUsd(): number {
    return this.prior + this.totals.costUsd;
  }

  stats(): LlmStats {
    return { ...this.totals, unpricedModels: [...this.unpriced].sort() };
  }

  async chat(req: ChatRequest, ctx: CallContext): Promise<ChatResult> {
    const { signal } = this.opts;
    const started = this.clock.now();
    const seeded =
      ctx.seed !== undefined && req.seed === undefined ? { ...req, seed: ctx.seed } : req;
    const r = this.resolve(seeded, ctx.role);
    let outcome: Outcome | undefined;
    let error: unknown;
    try {
      if (signal?.aborted) throw new InterruptedError('interrupted before the LLM call');
      outcome = await this.answer(r, ctx);
    } catch (err) {
      // Whatever an abort looks like below (p-queue's AbortError, a ProviderError), say it once.
      const interrupted = signal?.aborted && !(err instanceof InterruptedError);
      error = interrupted ? new InterruptedError('LLM call interrupted', { cause: err }) : err;
    }
    const latencyMs = Math.max(0, this.clock.now() - started);
    const { callId, usage, cost, record } = this.record(r, ctx, outcome, error, latencyMs);
    // A store that commits calls in groups: nobody sees the answer (or the failure) before the
    // call's row is committed, so a killed run never redoes a call whose answer was used.
    const committed = this.opts.store.committed?.();
    if (committed) await committed;
    this.opts.onCall?.({ ...record, callId });
    if (error !== undefined || !outcome) throw error;
    const { finishReason } = outcome.response;
    return {
      message: outcome.response.message,
      ...(finishReason !== undefined ? { finishReason } : {}),
      usage,
      costUsd: cost,
      cached: outcome.cached,
      latencyMs,
      provider: r.providerName,
      model: r.model,
      callId,
    };
  }

  /**
   * One text's count on the role's server (`tokenizer: server`): through the endpoint's limits
   * and the retry policy like a chat call, neither cached in the call cache nor recorded (it is
   * not a model call and costs nothing; ServerTokenCounter keeps the counts).
   */
  async tokenize(role: LlmRole, text: string): Promise<number> {
    const { signal } = this.opts;
    const roleCfg = roleConfig(this.config, role);
    const providerName = roleCfg.provider ?? this.config.provider;
    const provider = this.opts.providers[providerName];
    const tokenize = provider?.tokenize?.bind(provider);
    if (!provider || !tokenize || this.isSimulated(providerName)) {
      throw new ConfigError(
        'acon.config.yaml',
        tokenizerSetting(this.config, role),
        `server: the ${providerName} provider has no /tokenize to ask; use tokenizer server only with an OpenAI-compatible server that serves it (vLLM, SGLang), else o200k, cl100k or hf:PATH`,
      );
    }
    const req = { model: roleCfg.model, text, endpoint: roleCfg.endpoint };
    const queue = this.queues.get(roleCfg.endpoint)!;
    const endpoint = this.config.endpoints[roleCfg.endpoint]!;
    return withRetry(() => queue.run(() => tokenize(req, signal), { signal }), {
      maxRetries: endpoint.max_retries,
      sleep: (ms, s) => this.clock.sleep(ms, s),
      now: () => this.clock.now(),
      random: this.random,
      signal,
    });
  }

  private isSimulated(name: ProviderName): boolean {
    return this.opts.providers[name]?.simulated ?? name === 'sim';
  }

  private resolve(req: ChatRequest, role: LlmRole): Resolved {
    const roleCfg = roleConfig(this.config, role);
    const providerName = roleCfg.provider ?? this.config.provider;
    const model = roleCfg.model;
    // The model's family decides which sampling fields go out (reasoning models take no
    // temperature and `max_completion_tokens`): a caller's temperature is dropped for them.
    const { temperature, ...sampling } = samplingFor({
      model,
      temperature: req.temperature ?? roleCfg.temperature,
      maxTokens: req.maxTokens ?? roleCfg.max_tokens,
      reasoning: roleCfg.reasoning,
      reasoningEffort: roleCfg.reasoning_effort,
      limitParam: this.config.endpoints[roleCfg.endpoint]?.limit_param,
    });
    const { temperature: _asked, ...rest } = req;
    const request = {
      ...rest,
      model,
      ...(temperature !== undefined ? { temperature } : {}),
      maxTokens: sampling.maxTokens,
      limitParam: sampling.limitParam,
      ...(sampling.reasoningEffort !== undefined
        ? { reasoningEffort: sampling.reasoningEffort }
        : {}),
    };
    const hash = requestHash({ provider: providerName, ...request }, this.digests);
    return {
      providerName,
      provider: this.opts.providers[providerName],
      simulated: this.isSimulated(providerName),
      model,
      endpoint: roleCfg.endpoint,
      request,
      hash,
    };
  }

  private async send(r: Resolved, provider: LlmProvider, ctx: CallContext) {
    const { signal } = this.opts;
    const preq: ProviderRequest = { ...r.request, ctx, endpoint: r.endpoint };
    if (r.simulated) {
      this.totals.requests++;
      return provider.chat(preq, signal);
    }
    const queue = this.queues.get(r.endpoint)!;
    const endpoint = this.config.endpoints[r.endpoint]!;
    const tokens = queue.limitsTokens
      ? countMessageTokens(r.request.messages, r.request.tools) + r.request.maxTokens
      : undefined;
    return withRetry(
      () => {
        this.totals.requests++;
        return queue.run(() => provider.chat(preq, signal), { tokens, signal });
      },
      {
        maxRetries: endpoint.max_retries,
        sleep: (ms, s) => this.clock.sleep(ms, s),
        now: () => this.clock.now(),
        random: this.random,
        signal,
      },
    );
  }

  private async answer(r: Resolved, ctx: CallContext): Promise<Outcome> {
    const provider = r.provider;
    if (!provider) {
      throw new AconError(
        `no "${r.providerName}" provider was given to the LLM client for role ${ctx.role}; pass it in createLlmClient({ providers })`,
      );
    }
    const cacheable = this.readCache && !ctx.noCache && !r.simulated;
    if (cacheable) {
      const stored = this.opts.store.getCached(r.hash);
      if (stored) return { response: stored, cached: true };
      const leader = this.inFlight.get(r.hash);
      // If the first identical request fails, this one makes its own attempt.
      const shared = leader && (await leader.catch(() => undefined));
      if (shared) return { response: shared, cached: true };
    }
    // No await from the cache check to registering in `inFlight`: an identical call started in
    // the same tick must find this one.
    const spent = this.spentUsd();
    if (this.budget !== null && spent >= this.budget) {
      throw new BudgetExceededError(spent, this.budget);
    }
    const pending = this.send(r, provider, ctx);
    if (cacheable) {
      this.inFlight.set(r.hash, pending);
      // Followers handle the rejection; this only keeps the map clean.
      const forget = () => {
        if (this.inFlight.get(r.hash) === pending) this.inFlight.delete(r.hash);
      };
      pending.then(forget, forget);
    }
    const response = await pending;
    if (this.cacheOn && !r.simulated) {
      this.opts.store.putCached(r.hash, r.providerName, r.model, response);
    }
    return { response, cached: false };
  }

  /**
   * Prices the call, records it in the store (failed ones too) and adds it to the totals; the
   * caller tells `onCall` once the store has committed it.
   */
  private record(
    r: Resolved,
    ctx: CallContext,
    outcome: Outcome | undefined,
    error: unknown,
    latencyMs: number,
  ): { callId: number; usage: Usage; cost: number; record: CallRecord } {
    const usage = outcome?.response.usage ?? ZERO_USAGE;
    const price = this.config.prices[r.model];
    const billable = outcome !== undefined && !outcome.cached && !r.simulated;
    if (billable && !price) this.unpriced.add(r.model);
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
    const callId = this.opts.store.recordCall(record);
    if (billable) this.tokenizerCheck?.observe(ctx.role, r.request, usage.promptTokens);
    const t = this.totals;
    t.calls++;
    t.costUsd += cost;
    if (error !== undefined) t.errors++;
    if (outcome?.cached) t.cacheHits++;
    if (outcome && r.simulated) t.simulatedCalls++;
    t.promptTokens += usage.promptTokens;
    t.cachedPromptTokens += usage.cachedPromptTokens;
    t.completionTokens += usage.completionTokens;
    return { callId, usage, cost, record };
  }
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

import type { Clock } from '../src/clock.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../src/config/schema.js';
import {
  BudgetExceededError,
  ConfigError,
  ContextLengthError,
  InterruptedError,
  ProviderError,
} from '../src/errors.js';
import {
  createLlmClient,
  OpenAiProvider,
  type CreateLlmClientOptions,
  type LlmProvider,
  type ProviderRequest,
} from '../src/llm/index.js';
import { FakeOpenAiServer, reply } from './fakes/fake-openai-server.js';
import { RecordingCallStore } from './fakes/recording-call-store.js';

const KEY = 'sk-test-SECRET-123';
const ctx = { role: 'agent', runId: 'run-1', taskId: 't1', step: 0 } as const;
const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

/** Real time for latency, but backoff sleeps are recorded and skipped. */
function skippingClock(): Pick<Clock, 'now' | 'sleep'> & { sleeps: number[] } {
  const sleeps: number[] = [];
  return { sleeps, now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) };
}

function configFor(server: FakeOpenAiServer, over: Record<string, unknown> = {}): Config {
  return ConfigSchema.parse({
    provider: 'openai',
    endpoints: { default: { base_url: server.url, max_retries: 3, concurrency: 3 } },
    ...over,
  });
}

describe('createLlmClient with the openai provider', () => {
  let server: FakeOpenAiServer;
  let store: RecordingCallStore;
  let clock: ReturnType<typeof skippingClock>;

  beforeEach(async () => {
    server = await FakeOpenAiServer.start();
    store = new RecordingCallStore();
    clock = skippingClock();
  });

  afterEach(async () => {
    await server.close();
  });

  function client(over: Partial<CreateLlmClientOptions> = {}, config = configFor(server)) {
    const openai = new OpenAiProvider({
      endpoints: config.endpoints,
      env: { OPENAI_API_KEY: KEY },
    });
    return createLlmClient({
      config,
      providers: { openai },
      store,
      clock,
      random: () => 0.5,
      ...over,
    });
  }

  it('returns the answer with usage, cost and the recorded call id', async () => {
    server.enqueue(
      reply.text('hello', {
        usage: { prompt_tokens: 1000, cached_tokens: 400, completion_tokens: 100 },
      }),
    );
    const llm = client();
    const res = await llm.chat(ask('hi'), ctx);
    expect(res).toMatchObject({
      message: { role: 'assistant', content: 'hello' },
      usage: { promptTokens: 1000, cachedPromptTokens: 400, completionTokens: 100 },
      cached: false,
      provider: 'openai',
      model: 'gpt-4.1',
      callId: 1,
    });
    // gpt-4.1: 600 × $2 + 400 × $0.5 (cached) + 100 × $8, per 1M tokens
    expect(res.costUsd).toBeCloseTo(0.0022, 12);
    expect(store.calls).toHaveLength(1);
    expect(store.calls[0]).toMatchObject({ ctx, cached: false, error: null, model: 'gpt-4.1' });
    expect(store.calls[0]!.costUsd).toBeCloseTo(0.0022, 12);
  });

  it('sums cost over calls from the price table, cached prompt tokens at the cached price', async () => {
    const config = configFor(server, {
      prices: { 'gpt-4.1': { input: 2, cached_input: 0.5, output: 8 } },
      roles: { analyzer: { model: 'mystery-model' } },
    });
    server.enqueue(
      reply.text('a', {
        usage: { prompt_tokens: 2_000_000, cached_tokens: 1_000_000, completion_tokens: 0 },
      }),
      reply.text('b', { usage: { prompt_tokens: 0, completion_tokens: 500_000 } }),
      reply.text('c', { usage: { prompt_tokens: 100, completion_tokens: 100 } }),
    );
    const llm = client({}, config);
    await llm.chat(ask('one'), ctx);
    await llm.chat(ask('two'), ctx);
    const unknown = await llm.chat(ask('three'), { ...ctx, role: 'analyzer' });
    // $2 + $0.5 for the first call, $4 for the second; the unpriced model costs 0 and is flagged
    expect(llm.spentUsd()).toBeCloseTo(6.5, 9);
    expect(unknown.costUsd).toBe(0);
    expect(llm.stats()).toMatchObject({
      calls: 3,
      requests: 3,
      promptTokens: 2_000_100,
      cachedPromptTokens: 1_000_000,
      completionTokens: 500_100,
      unpricedModels: ['mystery-model'],
    });
  });

  it('answers a repeated request from the cache without any HTTP request', async () => {
    const llm = client();
    const first = await llm.chat(ask('same'), ctx);
    const second = await llm.chat(ask('same'), ctx);
    expect(server.requestCount).toBe(1);
    expect(second).toMatchObject({ cached: true, costUsd: 0, message: first.message });
    expect(store.calls.map((c) => c.cached)).toEqual([false, true]);
    expect(store.calls[1]!.requestHash).toBe(store.calls[0]!.requestHash);
    expect(llm.stats()).toMatchObject({ calls: 2, cacheHits: 1, requests: 1 });
    expect(llm.spentUsd()).toBe(first.costUsd);
  });

  it('sends identical requests in flight at the same time only once', async () => {
    server.latencyMs = 30;
    const llm = client();
    const results = await Promise.all([1, 2, 3].map(() => llm.chat(ask('twin'), ctx)));
    expect(server.requestCount).toBe(1);
    expect(results.map((r) => r.cached).sort()).toEqual([false, true, true]);
    expect(store.calls).toHaveLength(3);
  });

  it.each([
    ['--no-cache', { noCache: true }, {}],
    ['ctx.noCache', {}, { noCache: true }],
  ])('bypasses the cache with %s', async (_how, clientOpts, ctxOpts) => {
    const llm = client(clientOpts);
    await llm.chat(ask('again'), { ...ctx, ...ctxOpts });
    await llm.chat(ask('again'), { ...ctx, ...ctxOpts });
    expect(server.requestCount).toBe(2);
    expect(store.calls.every((c) => !c.cached)).toBe(true);
  });

  it('does not cache when run.cache is off', async () => {
    const config = configFor(server, { run: { cache: false } });
    const llm = client({}, config);
    await llm.chat(ask('x'), ctx);
    await llm.chat(ask('x'), ctx);
    expect(server.requestCount).toBe(2);
    expect(store.cache.size).toBe(0);
  });

  it('keys the cache by the resolved model and sampling', async () => {
    const llm = client();
    await llm.chat(ask('q'), ctx);
    await llm.chat({ ...ask('q'), temperature: 0.9 }, ctx);
    await llm.chat({ ...ask('q'), seed: 3 }, ctx);
    await llm.chat(ask('q'), { ...ctx, role: 'analyzer' }); // same model and defaults as agent
    expect(server.requestCount).toBe(3);
  });

  it('never has more requests in flight than the endpoint concurrency', async () => {
    server.latencyMs = 15;
    const llm = client();
    await Promise.all(Array.from({ length: 20 }, (_, i) => llm.chat(ask(`q${i}`), ctx)));
    expect(server.requestCount).toBe(20);
    expect(server.maxInFlight).toBe(3);
    expect(store.calls).toHaveLength(20);
  });

  it('retries a 429 after the Retry-After it was given', async () => {
    server.enqueue(
      reply.rateLimit({ retryAfterSeconds: 2 }),
      reply.serverError(),
      reply.text('done'),
    );
    const llm = client();
    const res = await llm.chat(ask('busy'), ctx);
    expect(res.message.content).toBe('done');
    // 2 s as asked, then jittered backoff 0.5 × 1000 ms (second retry window)
    expect(clock.sleeps).toEqual([2000, 500]);
    expect(server.requestCount).toBe(3);
    expect(store.calls).toHaveLength(1);
    expect(llm.stats()).toMatchObject({ calls: 1, requests: 3, errors: 0 });
  });

  it('surfaces a context-length error at once, without retrying, and records it', async () => {
    server.enqueue(reply.contextLength());
    const llm = client();
    const err = await llm.chat(ask('huge'), ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextLengthError);
    expect((err as ContextLengthError).status).toBe(400);
    expect(server.requestCount).toBe(1);
    expect(store.calls).toHaveLength(1);
    expect(store.calls[0]!.error).toMatch(/^ContextLengthError: .*maximum context length/);
    expect(store.calls[0]!.response).toBeNull();
  });

  it('turns malformed JSON into a ProviderError after the retries, and records the failure', async () => {
    server.setHandler(() => reply.malformedJson());
    const llm = client();
    const err = await llm.chat(ask('q'), ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toMatch(/malformed response: .* \(gave up after 4 attempts\)$/);
    expect(server.requestCount).toBe(4);
    expect(store.calls).toHaveLength(1);
    expect(store.calls[0]).toMatchObject({ costUsd: 0, cached: false, response: null });
    expect(llm.stats()).toMatchObject({ calls: 1, errors: 1, requests: 4 });
    // A failure is not cached: the next identical call tries again.
    server.setHandler(undefined);
    await expect(llm.chat(ask('q'), ctx)).resolves.toMatchObject({ cached: false });
  });

  it('refuses a call once the budget is spent, without a request', async () => {
    server.enqueue(
      reply.text('pricey', { usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } }),
    );
    const llm = client({ budgetUsd: 1 });
    await llm.chat(ask('first'), ctx);
    const err = await llm.chat(ask('second'), ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err).toMatchObject({ spentUsd: 2, budgetUsd: 1 });
    expect(server.requestCount).toBe(1);
    expect(store.calls.map((c) => c.error?.split(':')[0] ?? null)).toEqual([
      null,
      'BudgetExceededError',
    ]);
    // Cached answers are free, so they are still served.
    await expect(llm.chat(ask('first'), ctx)).resolves.toMatchObject({ cached: true });
  });

  it('counts what the run spent before a resume against the budget', async () => {
    const llm = client({ budgetUsd: 5, priorSpentUsd: 5 });
    await expect(llm.chat(ask('a'), ctx)).rejects.toMatchObject({ spentUsd: 5, budgetUsd: 5 });
    expect(server.requestCount).toBe(0);
    expect(llm.spentUsd()).toBe(5);
  });

  it('takes the budget from config when not given', async () => {
    const config = configFor(server, { budget: { usd: 0.000001 } });
    server.enqueue(reply.text('x', { usage: { prompt_tokens: 1000, completion_tokens: 0 } }));
    const llm = client({}, config);
    await llm.chat(ask('a'), ctx);
    await expect(llm.chat(ask('b'), ctx)).rejects.toBeInstanceOf(BudgetExceededError);
  });

  it('fails calls in flight and later ones with InterruptedError once aborted', async () => {
    server.latencyMs = 5000;
    // Abort once the three calls the concurrency allows have reached the server (an event,
    // not a guessed delay).
    let reached!: () => void;
    const threeInFlight = new Promise<void>((r) => (reached = r));
    server.setHandler(() => {
      if (server.requestCount >= 3) reached();
      return reply.text('slow');
    });
    const abort = new AbortController();
    const llm = client({ signal: abort.signal });
    const inFlight = llm.chat(ask('slow'), ctx);
    const queued = Array.from({ length: 4 }, (_, i) => llm.chat(ask(`q${i}`), ctx));
    await threeInFlight;
    abort.abort();
    const settled = await Promise.allSettled([inFlight, ...queued]);
    for (const s of settled) {
      expect(s.status === 'rejected' && s.reason instanceof InterruptedError).toBe(true);
    }
    await expect(llm.chat(ask('after'), ctx)).rejects.toBeInstanceOf(InterruptedError);
    expect(server.requestCount).toBe(3); // the concurrency, no retries
    expect(store.calls).toHaveLength(6);
    expect(store.calls.every((c) => c.error?.startsWith('InterruptedError'))).toBe(true);
  });

  it('tells onCall about every recorded call', async () => {
    const seen: number[] = [];
    const llm = client({ onCall: (c) => seen.push(c.callId) });
    await llm.chat(ask('a'), ctx);
    await llm.chat(ask('a'), ctx);
    expect(seen).toEqual([1, 2]);
  });

  it('rejects a role whose endpoint is not defined, naming the field', () => {
    const config = configFor(server, { roles: { analyzer: { model: 'm', endpoint: 'local' } } });
    expect(() => client({}, config)).toThrow(ConfigError);
    expect(() => client({}, config)).toThrow(
      /roles\.analyzer\.endpoint: endpoint "local" is not defined/,
    );
  });
});

/** A stand-in for the sim provider: deterministic, local, counts its calls. */
class EchoSimProvider implements LlmProvider {
  readonly name = 'sim';
  readonly simulated = true;
  readonly seen: ProviderRequest[] = [];
  async chat(req: ProviderRequest) {
    this.seen.push(req);
    const last = req.messages.at(-1)?.content ?? '';
    return {
      message: { role: 'assistant' as const, content: `echo: ${last}` },
      usage: { promptTokens: 10, cachedPromptTokens: 0, completionTokens: 2 },
    };
  }
}

describe('createLlmClient with a simulated provider', () => {
  it('records every call, bypasses the cache and the HTTP limits, and costs nothing', async () => {
    const sim = new EchoSimProvider();
    const store = new RecordingCallStore();
    const config = ConfigSchema.parse({
      endpoints: { default: { base_url: 'http://127.0.0.1:9/v1', concurrency: 1, rpm: 1 } },
    });
    const llm = createLlmClient({ config, providers: { sim }, store });
    const results = await Promise.all(Array.from({ length: 5 }, () => llm.chat(ask('hi'), ctx)));
    expect(results.every((r) => r.message.content === 'echo: hi' && !r.cached)).toBe(true);
    expect(results.every((r) => r.costUsd === 0 && r.provider === 'sim')).toBe(true);
    expect(sim.seen).toHaveLength(5);
    expect(sim.seen[0]).toMatchObject({ model: 'gpt-4.1', temperature: 0, maxTokens: 4096, ctx });
    expect(store.calls).toHaveLength(5);
    expect(store.cache.size).toBe(0);
    expect(llm.stats()).toMatchObject({ calls: 5, simulatedCalls: 5, cacheHits: 0, costUsd: 0 });
  });

  it('shows no answer, failure or onCall before the store has committed the call', async () => {
    const sim = new EchoSimProvider();
    let commit!: () => void;
    let fail!: (err: Error) => void;
    const store = new (class extends RecordingCallStore {
      committed() {
        return new Promise<void>((res, rej) => ((commit = res), (fail = rej)));
      }
    })();
    const config = ConfigSchema.parse({});
    const told: number[] = [];
    const llm = createLlmClient({
      config,
      providers: { sim },
      store,
      onCall: (c) => told.push(c.callId),
    });
    let answered = false;
    const pending = llm.chat(ask('hi'), ctx).then((r) => ((answered = true), r));
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.calls).toHaveLength(1);
    expect(answered).toBe(false);
    expect(told).toEqual([]);
    commit();
    await expect(pending).resolves.toMatchObject({ message: { content: 'echo: hi' }, callId: 1 });
    expect(told).toEqual([1]);
    // A commit that fails reaches the caller instead of the answer.
    const lost = llm.chat(ask('again'), ctx);
    await new Promise((resolve) => setImmediate(resolve));
    fail(new Error('disk full'));
    await expect(lost).rejects.toThrow('disk full');
    expect(told).toEqual([1]);
  });

  it('uses the provider a role names over the top-level one', async () => {
    const sim = new EchoSimProvider();
    const config = ConfigSchema.parse({
      provider: 'openai',
      roles: { agent: { model: 'x', provider: 'sim' } },
    });
    const llm = createLlmClient({ config, providers: { sim }, store: new RecordingCallStore() });
    await expect(llm.chat(ask('hi'), ctx)).resolves.toMatchObject({ provider: 'sim', model: 'x' });
    // The analyzer falls back to `openai`, which was not given: a recorded error, not a crash.
    await expect(llm.chat(ask('hi'), { ...ctx, role: 'analyzer' })).rejects.toThrow(
      /no "openai" provider/,
    );
  });
});

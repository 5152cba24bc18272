import type { Clock } from '../src/clock.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema, EndpointSchema } from '../src/config/schema.js';
import { ConfigError, ProviderError } from '../src/errors.js';
import {
  createLlmClient,
  OpenAiProvider,
  type ProviderRequest,
  type ToolDef,
} from '../src/llm/index.js';
import { FakeOpenAiServer, reply } from './fakes/fake-openai-server.js';
import { RecordingCallStore } from './fakes/recording-call-store.js';

const KEY = 'sk-test-SECRET-123';
const ctx = { role: 'agent', runId: 'run-1' } as const;
const noWait: Pick<Clock, 'now' | 'sleep'> = {
  now: () => Date.now(),
  sleep: async () => undefined,
};

const payTool: ToolDef = {
  type: 'function',
  function: {
    name: 'wallet_pay',
    description: 'Pay someone',
    parameters: {
      type: 'object',
      properties: { to: { type: 'string' }, amount: { type: 'number' } },
      required: ['to', 'amount'],
    },
  },
};

function request(over: Partial<ProviderRequest> = {}): ProviderRequest {
  return { model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }], ctx, ...over };
}

describe('OpenAiProvider against the fake server', () => {
  let server: FakeOpenAiServer;
  beforeEach(async () => {
    server = await FakeOpenAiServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  const provider = (
    over: Record<string, unknown> = {},
    env: Record<string, string> = { OPENAI_API_KEY: KEY },
  ) =>
    new OpenAiProvider({
      endpoints: { default: EndpointSchema.parse({ base_url: server.url, ...over }) },
      env,
    });

  it('sends every body whole and intact when their memory is reused, short after long', async () => {
    const p = provider();
    const sizes = [5000, 40_000, 10, 70_000, 3000, 40_000];
    for (const [i, n] of sizes.entries()) {
      await p.chat(request({ messages: [{ role: 'user', content: `${i}:${'x'.repeat(n)}` }] }));
    }
    const sent = server.chatRequests.map(
      (r) => JSON.parse(r.raw) as { messages: { content: string }[] },
    );
    expect(sent.map((b) => b.messages[0]!.content)).toEqual(
      sizes.map((n, i) => `${i}:${'x'.repeat(n)}`),
    );
  });

  it('sends messages, tools, JSON-schema format, temperature, max_tokens and seed', async () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    await provider().chat(
      request({
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'pay bob' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'wallet_pay', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: '{"error":"amount missing"}' },
        ],
        tools: [payTool],
        responseFormat: { name: 'verdict', schema },
        temperature: 0.3,
        maxTokens: 256,
        seed: 11,
      }),
    );
    const [sent] = server.chatRequests;
    expect(sent!.path).toBe('/v1/chat/completions');
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(sent!.raw)).toEqual({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'pay bob' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'wallet_pay', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"error":"amount missing"}' },
      ],
      tools: [payTool],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'verdict', schema, strict: true },
      },
      temperature: 0.3,
      max_tokens: 256,
      seed: 11,
    });
  });

  it('omits what was not asked for', async () => {
    await provider().chat(request({ tools: [] }));
    expect(JSON.parse(server.chatRequests[0]!.raw)).toEqual({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('returns tool calls and usage with cached prompt tokens', async () => {
    server.enqueue(
      reply.toolCalls([{ id: 'call_9', name: 'wallet_pay', arguments: { to: 'bob', amount: 5 } }], {
        usage: { prompt_tokens: 120, cached_tokens: 64, completion_tokens: 12 },
      }),
    );
    const res = await provider().chat(request({ tools: [payTool] }));
    expect(res).toEqual({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_9',
            type: 'function',
            function: { name: 'wallet_pay', arguments: '{"to":"bob","amount":5}' },
          },
        ],
      },
      usage: {
        promptTokens: 120,
        cachedPromptTokens: 64,
        completionTokens: 12,
        reasoningTokens: 0,
      },
    });
  });

  it('also serves a base URL without /v1', async () => {
    const p = new OpenAiProvider({
      endpoints: { default: EndpointSchema.parse({ base_url: server.origin }) },
      env: { OPENAI_API_KEY: KEY },
    });
    await expect(p.chat(request())).resolves.toMatchObject({ message: { content: 'ok' } });
    expect(server.chatRequests[0]!.path).toBe('/chat/completions');
  });

  it('names the variable to set when the API key is missing, before any request', async () => {
    const p = provider({ api_key_env: 'LOCAL_LLM_KEY' }, {});
    const err = await p.chat(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).field).toBe('endpoints.default.api_key_env');
    expect((err as Error).message).toContain('export LOCAL_LLM_KEY=');
    expect(server.requestCount).toBe(0);
  });

  it('gives up on a server that does not answer within timeout_ms', async () => {
    server.latencyMs = 2000;
    const err = await provider({ timeout_ms: 50 })
      .chat(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).status).toBeUndefined();
    expect((err as Error).message).toContain('no response within 50 ms');
  });

  it('spreads requests over several base URLs, fewest in flight first', async () => {
    const second = await FakeOpenAiServer.start();
    try {
      // Both servers hold every answer until all 8 requests have arrived, so the requests
      // overlap however slowly this machine runs (no timing involved).
      let arrived = 0;
      let releaseAll!: () => void;
      const allArrived = new Promise<void>((resolve) => (releaseAll = resolve));
      const barrier = async () => {
        if (++arrived === 8) releaseAll();
        await allArrived;
        return reply.text('ok');
      };
      server.setHandler(barrier);
      second.setHandler(barrier);
      const p = new OpenAiProvider({
        endpoints: {
          default: EndpointSchema.parse({ base_url: server.url, extra_base_urls: [second.url] }),
        },
        env: { OPENAI_API_KEY: KEY },
      });
      await Promise.all(Array.from({ length: 8 }, () => p.chat(request())));
      expect(server.requestCount).toBe(4);
      expect(second.requestCount).toBe(4);
      expect(server.maxInFlight).toBe(4);
      expect(p.inFlight()).toEqual({ [server.url]: 0, [second.url]: 0 });
    } finally {
      await second.close();
    }
  });

  it('reports a connection refused as a ProviderError', async () => {
    const origin = server.url;
    await server.close();
    const p = new OpenAiProvider({
      endpoints: { default: EndpointSchema.parse({ base_url: origin }) },
      env: { OPENAI_API_KEY: KEY },
    });
    const err = await p.chat(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toContain('cannot connect');
    server = await FakeOpenAiServer.start(); // for afterEach
  });
});

describe('the API key', () => {
  it('never appears in recorded calls, results or errors', async () => {
    const server = await FakeOpenAiServer.start();
    try {
      server.enqueue(
        reply.text('fine'),
        reply.rateLimit({ retryAfterMs: 1 }),
        reply.text('after retry'),
        // Real servers echo (part of) a wrong key; this one echoes all of it.
        reply.error(401, `Incorrect API key provided: ${KEY}. You can find your API key at …`),
        reply.error(400, `bad request for key ${KEY}`, { code: 'context_length_exceeded' }),
        reply.malformedJson(),
        reply.malformedJson(),
      );
      const config = ConfigSchema.parse({
        provider: 'openai',
        endpoints: { default: { base_url: server.url, max_retries: 1 } },
      });
      const store = new RecordingCallStore();
      const openai = new OpenAiProvider({
        endpoints: config.endpoints,
        env: { OPENAI_API_KEY: KEY },
      });
      const llm = createLlmClient({ config, providers: { openai }, store, clock: noWait });

      const outcomes: unknown[] = [];
      for (const q of ['a', 'b', 'c', 'd', 'e']) {
        outcomes.push(
          await llm
            .chat({ messages: [{ role: 'user', content: q }] }, ctx)
            .catch((e: unknown) => e),
        );
      }
      const errors = outcomes.filter((o): o is Error => o instanceof Error);
      expect(errors.map((e) => e.name)).toEqual([
        'ProviderError',
        'ContextLengthError',
        'ProviderError',
      ]);

      // The key did go over the wire, so the checks below are not vacuous.
      expect(server.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
      expect(JSON.stringify(server.requests.map((r) => r.raw))).not.toContain(KEY);

      const chain = (e: unknown): string[] =>
        e instanceof Error
          ? [e.message, String(e.stack), JSON.stringify(e), ...chain(e.cause)]
          : [];
      for (const e of errors) expect(chain(e).join('\n')).not.toContain(KEY);
      expect(JSON.stringify(outcomes.filter((o) => !(o instanceof Error)))).not.toContain(KEY);
      expect(JSON.stringify(store.calls)).not.toContain(KEY);
      expect(JSON.stringify([...store.cache.values()])).not.toContain(KEY);
      expect(store.calls[3]!.error).toContain('[REDACTED]');
    } finally {
      await server.close();
    }
  });
});

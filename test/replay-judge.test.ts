import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRaw, defaultTokenCounter, type ContextStrategy } from '../src/agent/index.js';
import { ConfigSchema, type Config } from '../src/config/schema.js';
import type { ChatMessage, Trace } from '../src/domain/index.js';
import { ConfigError, ProviderError } from '../src/errors.js';
import { createAnswerJudge, replayTrace } from '../src/experiment/index.js';
import { createLlmClient, OpenAiProvider, roleConfig } from '../src/llm/index.js';
import { createSimProvider } from '../src/sim/index.js';
import { FakeOpenAiServer, reply, type FakeRequest } from './fakes/fake-openai-server.js';
import { RecordingCallStore } from './fakes/recording-call-store.js';

// Issue #57: a free-text final answer the normaliser finds different goes to `roles.judge`
// when one is configured. The judge is a real OpenAI-compatible endpoint (a fake one on
// 127.0.0.1 answering per the chat-completions contract, `response_format: json_schema`).

const messages: ChatMessage[] = [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: 'How much was order 5521?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'show_order', arguments: '{"id":5521}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: '{"id": 5521, "amount": 42.5, "note": "gift"}' },
  { role: 'assistant', content: 'It was 42.5 dollars.' },
];
const trace: Trace = { id: 't', messages, tools: [], outcome: 'success', source: 'test' };

/** Full context, except that the last step's view drops the order's note (so it is replayed). */
function lastStepCompressed(): ContextStrategy {
  const raw = createRaw(defaultTokenCounter);
  return {
    name: 'acon',
    async view(trajectory, step) {
      const v = await raw.view(trajectory, step);
      if (step < 1) return v;
      return {
        ...v,
        messages: v.messages.map((m) =>
          m.role === 'tool' ? { ...m, content: '{"id": 5521, "amount": 42.5}' } : m,
        ),
      };
    },
    compressNow: async () => [],
  };
}

const isJudge = (req: FakeRequest) =>
  (req.body?.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema
    ?.name === 'answer_verdict';

function configFor(server: FakeOpenAiServer, judge: boolean): Config {
  return ConfigSchema.parse({
    provider: 'openai',
    endpoints: { default: { base_url: server.url, max_retries: 0 } },
    ...(judge ? { roles: { judge: { model: 'judge-model' } } } : {}),
  });
}

describe('replay with the judge role', () => {
  let server: FakeOpenAiServer;
  let store: RecordingCallStore;
  let verdicts: string[];

  beforeEach(async () => {
    verdicts = [];
    server = await FakeOpenAiServer.start({
      handler: (req) =>
        isJudge(req)
          ? reply.text(verdicts.shift() ?? 'no verdict left')
          : reply.text('The order came to $42.50.'),
    });
    store = new RecordingCallStore();
  });
  afterEach(async () => {
    await server.close();
  });

  function run(config: Config, withJudge: boolean) {
    const llm = createLlmClient({
      config,
      providers: {
        openai: new OpenAiProvider({
          endpoints: config.endpoints,
          env: { OPENAI_API_KEY: 'sk-test' },
        }),
      },
      store,
    });
    return replayTrace({
      trace,
      strategy: lastStepCompressed(),
      llm,
      tokens: defaultTokenCounter,
      callCtx: { runId: 'run-1', rolloutId: 'replay:x/t', taskId: 't' },
      ...(withJudge ? { judge: createAnswerJudge(llm, 1) } : {}),
    });
  }

  it('without a judge, two wordings of one answer disagree (the normaliser compares texts)', async () => {
    const out = await run(configFor(server, false), false);
    expect(out.steps[1]).toMatchObject({ compressed: true, agrees: false });
    expect(out.steps[1]!.judged).toBeUndefined();
    expect(server.requests.filter(isJudge)).toHaveLength(0);
  });

  it('a malformed verdict is shown back once; the parsed one decides, and both are recorded calls', async () => {
    verdicts.push('yes, the same', '{"equivalent": true, "reason": "both say 42.50 dollars"}');
    const out = await run(configFor(server, true), true);
    expect(out.steps[1]).toMatchObject({
      agrees: true,
      judged: { verdict: 'equivalent', reason: 'both say 42.50 dollars' },
    });
    const asked = server.requests.filter(isJudge);
    expect(asked).toHaveLength(2);
    expect(asked[0]!.body!.model).toBe('judge-model');
    const prompt = JSON.stringify(asked[0]!.body!.messages);
    expect(prompt).toContain('How much was order 5521?');
    expect(prompt).toContain('It was 42.5 dollars.');
    expect(prompt).toContain('The order came to $42.50.');
    expect(JSON.stringify(asked[1]!.body!.messages)).toContain('That answer cannot be used');
    expect(store.calls.filter((c) => c.ctx.role === 'judge')).toHaveLength(2);
  });

  it('a "different" verdict is a disagreement; no usable verdict after the retries is one too', async () => {
    verdicts.push('{"equivalent": false, "reason": "the amounts differ"}');
    const different = await run(configFor(server, true), true);
    expect(different.steps[1]).toMatchObject({ agrees: false, judged: { verdict: 'different' } });

    // A fresh call cache: the same question must reach the judge again.
    store = new RecordingCallStore();
    verdicts.push('{"equivalent": "maybe"}', 'not json');
    const failed = await run(configFor(server, true), true);
    expect(failed.steps[1]).toMatchObject({ agrees: false, judged: { verdict: 'failed' } });
    expect(failed.steps[1]!.judged!.reason).toContain('no usable verdict');
  });

  it('roles.judge is optional: absent by default, and asking for it then says what to set', () => {
    const config = ConfigSchema.parse({});
    expect(config.roles.judge).toBeUndefined();
    expect(() => roleConfig(config, 'judge')).toThrow(ConfigError);
    expect(() => roleConfig(config, 'judge')).toThrow(/roles\.judge/);
    expect(roleConfig(configFor(server, true), 'judge').model).toBe('judge-model');
  });

  it('the sim plays no judge: a judge call with the sim provider says to give it a real model', async () => {
    const config = ConfigSchema.parse({ roles: { judge: { model: 'm' } } });
    const sim = createSimProvider({
      seed: 1,
      refetchLimit: 0,
      planFor: () => Promise.reject(new Error('no plan')),
    });
    const llm = createLlmClient({ config, providers: { sim }, store });
    await expect(
      llm.chat({ messages: [{ role: 'user', content: 'x' }] }, { role: 'judge', runId: 'r' }),
    ).rejects.toThrow(ProviderError);
  });
});

import { join } from 'node:path';
import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../src/config/schema.js';
import { countTokens } from '../src/llm/tokenizer.js';
import type { RunningProxy } from '../src/runtime/proxy/start-proxy.js';
import { startLocalProxy } from './helpers/local-proxy.js';
import { openRunStore } from '../src/store/index.js';
import { FakeOpenAiServer, reply } from './fakes/fake-openai-server.js';
import { FakeResponsesUpstream } from './fakes/fake-responses-upstream.js';
import { tempDir } from './helpers/cli.js';
import { bigToolResult, compressorHandler } from './helpers/runtime-fixtures.js';

/**
 * Issue #54: `acon proxy --record` records Responses API traffic as it records chat completions:
 * each compressed `POST /v1/responses` is a step of its conversation's rollout, its answer (a
 * response object, or the event stream's `response.completed`) the agent call, with the usage
 * the Responses API reports (openai-node `ResponseUsage`): `input_tokens` with
 * `input_tokens_details.cached_tokens`, `output_tokens` with
 * `output_tokens_details.reasoning_tokens`, priced from the config's price table.
 */
const KEY_ENV = 'ACON_PROXY_RESPONSES_RECORD_KEY';
const T_OBS = 1024;
const CACHED = 30;
const REASONING = 40;
const BIG = bigToolResult(1, 5000);

let upstream: FakeResponsesUpstream;
let compressor: FakeOpenAiServer;
let proxy: RunningProxy | undefined;

beforeEach(async () => {
  process.env[KEY_ENV] = 'sk-compressor-0123456789';
  upstream = await FakeResponsesUpstream.start('the total is 42', {
    cached: CACHED,
    reasoning: REASONING,
  });
  compressor = await FakeOpenAiServer.start({ handler: compressorHandler(() => reply.text('?')) });
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await upstream.close();
  await compressor.close();
  delete process.env[KEY_ENV];
});

function input(task: string): ResponseInputItem[] {
  return [
    { role: 'user', content: [{ type: 'input_text', text: task }] },
    { type: 'function_call', call_id: 'call_1', name: 'list_records', arguments: '{"page":0}' },
    { type: 'function_call_output', call_id: 'call_1', output: BIG },
  ];
}

describe('acon proxy --record: the Responses API', () => {
  it('stores each conversation as a rollout with its usage and cost, streaming and not', async () => {
    const db = join(tempDir(), 'runs.db');
    const config = ConfigSchema.parse({ context: { t_obs: T_OBS } });
    proxy = await startLocalProxy({
      config,
      upstream: upstream.url,
      compressor: { url: compressor.url, keyEnv: KEY_ENV },
      record: db,
      log: () => {},
    });
    const client = new OpenAI({ baseURL: proxy.url, apiKey: 'sk-client-0123', maxRetries: 0 });
    const plain = await client.responses.create({
      model: 'gpt-4.1',
      instructions: 'You are agent A.',
      input: input('List every record (A).'),
    });
    expect(plain.output_text).toBe('the total is 42');
    const stream = await client.responses.create({
      model: 'gpt-4.1',
      instructions: 'You are agent B.',
      input: input('List every record (B).'),
      stream: true,
    });
    for await (const event of stream) void event;
    const runId = proxy.runId!;
    await proxy.close();
    proxy = undefined;

    const store = openRunStore(db);
    try {
      const rollouts = store.rollouts(runId);
      expect(rollouts.map((r) => r.status)).toEqual(['completed', 'completed']);
      const price = config.prices['gpt-4.1']!;
      for (const rollout of rollouts) {
        // What the upstream was sent for this conversation, and what it reported for it.
        const { system } = store.trajectoryHead(rollout.id);
        const input = upstream.requests.find((r) => r.body.instructions === system)!.inputTokens;
        expect(input).toBeGreaterThan(CACHED);
        const agent = store.callsOfRollout(rollout.id).filter((c) => c.role === 'agent');
        expect(agent).toHaveLength(1);
        expect(agent[0]).toMatchObject({
          model: 'gpt-4.1',
          promptTokens: input,
          cachedTokens: CACHED,
          completionTokens: 5 + REASONING,
          reasoningTokens: REASONING,
        });
        const expected =
          ((input - CACHED) * price.input +
            CACHED * price.cached_input +
            (5 + REASONING) * price.output) /
          1e6;
        expect(agent[0]!.costUsd).toBeCloseTo(expected, 10);
        const [step] = store.stepRecords(rollout.id);
        expect(step!.assistant).toMatchObject({ role: 'assistant', content: 'the total is 42' });
        // The step's prompt is what went upstream: the big output compressed under T_obs.
        const prompt = store.prompts(rollout.id)[0] as { role: string; content: string }[];
        const tool = prompt.find((m) => m.role === 'tool')!;
        expect(countTokens(tool.content)).toBeLessThan(T_OBS);
        expect(store.events(rollout.id).map((e) => e.kind)).toEqual(['obs']);
      }
      expect(store.callStats(runId).costUsd).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });
});

import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../src/config/schema.js';
import { countTokens } from '../src/llm/tokenizer.js';
import type { RunningProxy } from '../src/runtime/proxy/start-proxy.js';
import { startLocalProxy } from './helpers/local-proxy.js';
import { FakeOpenAiServer, reply } from './fakes/fake-openai-server.js';
import { FakeResponsesUpstream } from './fakes/fake-responses-upstream.js';
import { bigToolResult, compressorHandler } from './helpers/runtime-fixtures.js';

const KEY_ENV = 'ACON_PROXY_RESPONSES_TEST_KEY';
const T_OBS = 1024;

let upstream: FakeResponsesUpstream;
let compressor: FakeOpenAiServer;
let proxy: RunningProxy | undefined;
let logs: string[];

beforeEach(async () => {
  process.env[KEY_ENV] = 'sk-compressor-0123456789';
  upstream = await FakeResponsesUpstream.start();
  compressor = await FakeOpenAiServer.start({ handler: compressorHandler(() => reply.text('?')) });
  logs = [];
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await upstream.close();
  await compressor.close();
  delete process.env[KEY_ENV];
});

async function start() {
  proxy = await startLocalProxy({
    config: ConfigSchema.parse({ context: { t_obs: T_OBS } }),
    upstream: upstream.url,
    compressor: { url: compressor.url, keyEnv: KEY_ENV },
    log: (line) => logs.push(line),
  });
  return new OpenAI({ baseURL: proxy.url, apiKey: 'sk-client-0123456789', maxRetries: 0 });
}

const BIG = bigToolResult(1, 5000);

/** What an agent on the Responses API sends after two tool calls, the first answered big. */
function input(): ResponseInputItem[] {
  return [
    {
      role: 'user',
      content: [{ type: 'input_text', text: 'List every record, report the total.' }],
    },
    { type: 'reasoning', id: 'rs_1', summary: [] },
    { type: 'function_call', call_id: 'call_1', name: 'list_records', arguments: '{"page":0}' },
    { type: 'function_call_output', call_id: 'call_1', output: BIG },
    { type: 'function_call', call_id: 'call_2', name: 'count', arguments: '{}' },
    { type: 'function_call_output', call_id: 'call_2', output: '{"count":240}' },
  ];
}

function sentItems() {
  const [req] = upstream.requests;
  expect(req).toBeDefined();
  return req!.body.input as { type?: string; call_id?: string; output?: unknown }[];
}

function expectObsCompressed() {
  const items = sentItems();
  expect(items.map((i) => i.type ?? 'message')).toEqual([
    'message',
    'reasoning',
    'function_call',
    'function_call_output',
    'function_call',
    'function_call_output',
  ]);
  const big = items.find((i) => i.call_id === 'call_1' && i.type === 'function_call_output')!;
  expect(countTokens(String(big.output))).toBeLessThan(T_OBS);
  expect(String(big.output)).toContain('record 1');
  expect(items.at(-1)!.output).toBe('{"count":240}');
}

describe('acon proxy: the Responses API', () => {
  it('compresses a 5,000-token function_call_output under T_obs (non-streaming)', async () => {
    expect(countTokens(BIG)).toBeGreaterThan(4500);
    const client = await start();
    const { data, response } = await client.responses
      .create({
        model: 'gpt-4.1',
        instructions: 'You are a careful agent.',
        input: input(),
        store: false,
      })
      .withResponse();
    expect(data.output_text).toBe('the total is 42');
    expectObsCompressed();
    expect(upstream.requests[0]!.body.instructions).toBe('You are a careful agent.');
    expect(upstream.requests[0]!.body.store).toBe(false);
    expect(response.headers.get('x-acon-compression')).toMatch(/^obs=1 hist=0 saved=\d{4,}$/);
    expect(logs.join('\n')).toMatch(/POST \/v1\/responses 200 [\d,]+ -> [\d,]+ tokens \(obs 1\)/);
  });

  it('streams the answer through with the compressed input upstream', async () => {
    const client = await start();
    const { data: stream, response } = await client.responses
      .create({ model: 'gpt-4.1', input: input(), stream: true })
      .withResponse();
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(text).toBe('the total is 42');
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(upstream.requests[0]!.body.stream).toBe(true);
    expectObsCompressed();
    expect(response.headers.get('x-acon-compression')).toMatch(/^obs=1 hist=0 saved=\d+$/);
  });

  it('logs a compressor with no usable answer as failed and sends the output as it came', async () => {
    compressor.setHandler(() => reply.text('I cannot do that.'));
    const client = await start();
    const { response } = await client.responses
      .create({ model: 'gpt-4.1', input: input() })
      .withResponse();
    expect(sentItems()[3]!.output).toBe(BIG);
    expect(response.headers.get('x-acon-compression')).toBe('obs=0 hist=0 saved=0 failed=2');
    const line = logs.find((l) => l.startsWith('POST /v1/responses'))!;
    expect(line).toContain('compressor failed (obs');
    expect(line).not.toMatch(/\(obs 1\b/);
  });

  it('logs a compressor answer cut at the token limit as failed, with the reason', async () => {
    compressor.setHandler(() =>
      reply.text('# Refined Observation\n{"kept":"rec', { finishReason: 'length' }),
    );
    const client = await start();
    const { response } = await client.responses
      .create({ model: 'gpt-4.1', input: input() })
      .withResponse();
    expect(sentItems()[3]!.output).toBe(BIG);
    expect(response.headers.get('x-acon-compression')).toMatch(/^obs=0 hist=0 saved=0 failed=\d$/);
    const line = logs.find((l) => l.startsWith('POST /v1/responses'))!;
    expect(line).toContain('compressor failed (obs: the answer was cut off at the token limit');
    expect(line).not.toMatch(/\(obs 1\b/);
  });

  it('passes a request with previous_response_id through untouched and says why', async () => {
    const client = await start();
    const items = input().slice(2);
    const { response } = await client.responses
      .create({ model: 'gpt-4.1', previous_response_id: 'resp_0', input: items })
      .withResponse();
    expect(sentItems()).toEqual(items);
    expect(compressor.requestCount).toBe(0);
    expect(response.headers.get('x-acon-compression')).toBe('passthrough=previous_response_id');
    expect(logs.join('\n')).toContain('passed through untouched: previous_response_id set');
  });

  it('passes a string input through untouched', async () => {
    const client = await start();
    const answer = await client.responses.create({ model: 'gpt-4.1', input: 'hello' });
    expect(answer.output_text).toBe('the total is 42');
    expect(upstream.requests[0]!.body.input).toBe('hello');
    expect(logs.join('\n')).toContain('POST /v1/responses 200 passed through untouched');
  });
});

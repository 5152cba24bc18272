import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../src/config/schema.js';
import { countTokens } from '../src/llm/tokenizer.js';
import type { RunningProxy } from '../src/runtime/proxy/start-proxy.js';
import { startLocalProxy } from './helpers/local-proxy.js';
import { openRunStore } from '../src/store/open-run-store.js';
import { FakeOpenAiServer, reply } from './fakes/fake-openai-server.js';
import { runAcon, tempDir } from './helpers/cli.js';
import {
  bodyOf,
  compressorHandler,
  longConversation,
  pairingIntact,
} from './helpers/runtime-fixtures.js';

const CLIENT_KEY = 'sk-client-secret-0123456789';
const COMPRESSOR_KEY = 'sk-compressor-secret-9876543210';
const KEY_ENV = 'ACON_PROXY_TEST_COMPRESSOR_KEY';

let upstream: FakeOpenAiServer;
let compressor: FakeOpenAiServer;
let proxy: RunningProxy | undefined;
let logs: string[];
let db: string;

beforeEach(async () => {
  process.env[KEY_ENV] = COMPRESSOR_KEY;
  upstream = await FakeOpenAiServer.start({ handler: () => reply.text('the total is 42') });
  compressor = await FakeOpenAiServer.start({ handler: compressorHandler(() => reply.text('?')) });
  logs = [];
  db = join(tempDir('acon-proxy-'), 'acon.db');
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await upstream.close();
  await compressor.close();
  delete process.env[KEY_ENV];
});

async function start(opts: { record?: boolean } = {}) {
  proxy = await startLocalProxy({
    config: ConfigSchema.parse({}),
    upstream: upstream.url,
    compressor: { url: compressor.url, keyEnv: KEY_ENV },
    ...(opts.record ? { record: db } : {}),
    log: (line) => logs.push(line),
  });
  return new OpenAI({ baseURL: proxy.url, apiKey: CLIENT_KEY, maxRetries: 0 });
}

function sentUpstream() {
  const [req] = upstream.chatRequests;
  expect(req).toBeDefined();
  return { req: req!, messages: bodyOf(req!).messages as { role: string; content?: unknown }[] };
}

function expectCompressed(messages: { role: string; content?: unknown }[]) {
  const input = longConversation(12);
  expect(messages.length).toBeLessThan(input.length);
  expect(String(messages[2]!.content)).toContain('[Context summary]');
  for (const m of messages.filter((x) => x.role === 'tool')) {
    expect(countTokens(String(m.content))).toBeLessThan(1024);
  }
  expect(pairingIntact(messages as never)).toBe(true);
}

describe('acon proxy', () => {
  it('forwards a compressed request and returns the answer (non-streaming)', async () => {
    const client = await start();
    const answer = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: longConversation(12),
    });
    expect(answer.choices[0]!.message.content).toBe('the total is 42');
    const { req, messages } = sentUpstream();
    expectCompressed(messages);
    expect(req.headers.authorization).toBe(`Bearer ${CLIENT_KEY}`);
    expect(compressor.chatRequests[0]!.headers.authorization).toBe(`Bearer ${COMPRESSOR_KEY}`);
    expect(
      logs.some((l) => /POST \/v1\/chat\/completions 200 [\d,]+ -> [\d,]+ tokens/.test(l)),
    ).toBe(true);
  });

  it('streams the answer through with the compressed request upstream', async () => {
    const client = await start();
    const stream = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: longConversation(12),
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('the total is 42');
    expect(bodyOf(sentUpstream().req).stream).toBe(true);
    expectCompressed(sentUpstream().messages);
  });

  it('sends the request uncompressed when the compressor fails, and the answer stays intact', async () => {
    compressor.setHandler(() => reply.error(500, 'compressor down'));
    compressor.enqueue(reply.error(401, 'Incorrect API key provided'));
    const client = await start();
    const input = longConversation(12);
    const answer = await client.chat.completions.create({ model: 'gpt-4.1', messages: input });
    expect(answer.choices[0]!.message.content).toBe('the total is 42');
    expect(sentUpstream().messages).toEqual(input);
    expect(logs.join('\n')).toContain('compressor failed, request sent uncompressed');
  });

  it('--record stores a cut compressor answer as a failed compression with its reason', async () => {
    compressor.setHandler(() =>
      reply.text('# Refined Observation\n{"kept":"rec', { finishReason: 'length' }),
    );
    const client = await start({ record: true });
    const input = longConversation(12);
    await client.chat.completions.create({ model: 'gpt-4.1', messages: input });
    expect(sentUpstream().messages).toEqual(input);
    const runId = proxy!.runId!;
    await proxy!.close();
    proxy = undefined;
    const store = openRunStore(db, { mode: 'read' });
    const [rollout] = store.rollouts(runId);
    const events = store.events(rollout!.id);
    store.close();
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(e.failed).toBe(true);
      expect(e.failureReason).toContain('cut off at the token limit');
    }
  });

  it('passes a bad upstream answer back unchanged, and forwards other routes', async () => {
    upstream.enqueue(
      reply.error(429, 'Rate limit reached for gpt-4.1', { code: 'rate_limit_exceeded' }),
    );
    const client = await start();
    const err = await client.chat.completions
      .create({ model: 'gpt-4.1', messages: longConversation(1) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).message).toContain(
      'Rate limit reached for gpt-4.1',
    );
    const models = await fetch(`${proxy!.url}/models`, {
      headers: { authorization: `Bearer ${CLIENT_KEY}` },
    });
    expect(models.status).toBe(404);
    expect(await models.json()).toEqual({
      error: { message: 'no route GET /v1/models', code: 'not_found' },
    });
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${CLIENT_KEY}`);
  });

  it('records compressor calls and requests, and no key reaches the store or the log', async () => {
    const client = await start({ record: true });
    await client.chat.completions.create({ model: 'gpt-4.1', messages: longConversation(12) });
    const stream = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: longConversation(13),
      stream: true,
    });
    for await (const chunk of stream) void chunk;
    const runId = proxy!.runId!;
    await proxy!.close();
    proxy = undefined;
    const store = openRunStore(db, { mode: 'read' });
    const calls = store.calls({ runId });
    store.close();
    const roles = calls.map((c) => c.role);
    expect(roles.filter((r) => r === 'agent')).toHaveLength(2);
    expect(roles).toContain('obs_compressor');
    expect(roles).toContain('hist_compressor');
    const agent = calls.filter((c) => c.role === 'agent');
    expect(agent.map((c) => JSON.parse(c.response!).message.content)).toEqual([
      'the total is 42',
      'the total is 42',
    ]);
    const everything = [
      JSON.stringify(calls),
      logs.join('\n'),
      readFileSync(db).toString('latin1'),
    ];
    for (const text of everything) {
      expect(text).not.toContain(CLIENT_KEY);
      expect(text).not.toContain(COMPRESSOR_KEY);
    }
  });

  it('--record stores each conversation as a rollout that runs show, rollout show and export read', async () => {
    // The agent calls a tool after 12 turns and answers after 13: one run of the agent, 2 steps.
    upstream.setHandler((req) =>
      (bodyOf(req).messages as { tool_call_id?: string }[]).at(-1)!.tool_call_id === 'call_12'
        ? reply.text('the total is 42')
        : reply.toolCalls([{ name: 'list_records', arguments: { page: 12 } }]),
    );
    const client = await start({ record: true });
    await client.chat.completions.create({ model: 'gpt-4.1', messages: longConversation(12) });
    await client.chat.completions.create({ model: 'gpt-4.1', messages: longConversation(13) });
    // The agent answered: its rollout is stored at once, while the proxy runs.
    const live = openRunStore(db, { mode: 'read' });
    expect(live.rollouts(proxy!.runId!)).toHaveLength(1);
    live.close();
    const other = [
      { role: 'system' as const, content: 'You are a careful agent.' },
      { role: 'user' as const, content: 'Another task: say hello.' },
    ];
    await client.chat.completions.create({ model: 'gpt-4.1', messages: other });
    const runId = proxy!.runId!;
    await proxy!.close();
    proxy = undefined;

    const store = openRunStore(db, { mode: 'read' });
    const rollouts = store.rollouts(runId);
    const long = rollouts.find((r) => r.steps === 2)!;
    const open = rollouts.find((r) => r.id !== long.id)!;
    const roles = store.callsOfRollout(long.id).map((c) => c.role);
    const trajectory = store.trajectory(long.id);
    const events = store.events(long.id);
    store.close();
    expect(rollouts).toHaveLength(2);
    // Still calling tools when the proxy stopped: stored then, not a success.
    expect(open).toMatchObject({ steps: 1, success: false, status: 'open' });
    expect(long).toMatchObject({
      run_id: runId,
      split: 'proxy',
      strategy: 'acon',
      condition: 'acon[obs-0000,hist-0000]',
      success: true,
      status: 'completed',
    });
    // The compressor calls of the conversation are its rollout's, next to its two agent calls.
    expect(roles.filter((r) => r === 'agent')).toHaveLength(2);
    expect(roles).toContain('obs_compressor');
    expect(roles).toContain('hist_compressor');
    expect(trajectory.task).toBe('List every record and report the total.');
    expect(trajectory.turns).toHaveLength(14);
    expect(trajectory.turns.at(-1)!.assistant.content).toBe('the total is 42');
    expect(events.map((e) => e.kind)).toEqual(expect.arrayContaining(['obs', 'hist']));
    expect(long.metrics.compressionEvents).toBe(events.length);

    const cwd = tempDir('acon-proxy-cli-');
    const show = await runAcon(['runs', 'show', runId, '--db', db, '--json'], { cwd });
    expect(show.code, show.stderr).toBe(0);
    expect((JSON.parse(show.stdout) as { rollouts: unknown[] }).rollouts).toHaveLength(2);
    const one = await runAcon(['rollout', 'show', long.id, '--db', db, '--json'], { cwd });
    expect(one.code, one.stderr).toBe(0);
    expect((JSON.parse(one.stdout) as { steps: unknown[] }).steps).toHaveLength(2);
    const out = join(cwd, 'hist.jsonl');
    const hist = await runAcon(
      [
        'export',
        '--run',
        runId,
        '--db',
        db,
        '--split',
        'proxy',
        '--role',
        'hist',
        '--format',
        'openai',
        '--out',
        out,
      ],
      { cwd },
    );
    expect(hist.code, hist.stderr).toBe(0);
    const page = join(cwd, 'report.html');
    const report = await runAcon(['report', runId, '--db', db, '--html', page], { cwd });
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(page, 'utf8')).toContain(long.id);
    expect(readFileSync(out, 'utf8').trim().split('\n').length).toBeGreaterThan(0);
  });

  it('answers the requests in flight before it shuts down', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    upstream.setHandler(async () => {
      await gate;
      return reply.text('late answer');
    });
    const client = await start();
    const pending = client.chat.completions.create({ model: 'm', messages: longConversation(1) });
    while (upstream.chatRequests.length === 0) await new Promise((r) => setImmediate(r));
    let closed = false;
    const closing = proxy!.close().then(() => (closed = true));
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(false);
    release();
    expect((await pending).choices[0]!.message.content).toBe('late answer');
    await closing;
    proxy = undefined;
    await expect(client.chat.completions.create({ model: 'm', messages: [] })).rejects.toThrow();
  });
});

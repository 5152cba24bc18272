import { join } from 'node:path';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../src/config/index.js';
import {
  createContextCompressor,
  loadGuidelines,
  startProxy,
  type CompressionReport,
  type TokenizerOption,
} from '../src/runtime/index.js';
import { countMessageTokens, tokenCounterFor, type ChatMessage } from '../src/llm/index.js';
import { openRunStore } from '../src/store/index.js';
import { FakeOpenAiServer, reply } from './fakes/fake-openai-server.js';
import { tempDir } from './helpers/cli.js';
import { compressorHandler } from './helpers/runtime-fixtures.js';
import { wordCount, writeWordTokenizer } from './helpers/word-tokenizer.js';

/**
 * Issue #54: the runtime library and the proxy count T_obs, T_hist and their reports in the
 * configured tokenizer, not o200k whatever the model. WORD_TOKENIZER counts a run of word
 * characters or of punctuation as one token, so text can be made that one tokenizer finds over
 * the threshold and the other under it.
 */
const PLAIN = { disallowedSpecial: new Set<string>() };
const T_OBS = 100;

/** Rare long words: one token each for the word tokenizer, several each for o200k. */
const RARE = Array.from({ length: 60 }, (_, i) => `zqxv${(i * 7919).toString(36)}kpfw`).join(' ');
/** `a,b,c,…`: two tokens a pair for the word tokenizer, about one for o200k. */
const PUNCT = Array.from({ length: 70 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(',');

function conversation(observation: string): ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'List the records.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: observation },
  ];
}

async function obsEvents(observation: string, tokenizer?: TokenizerOption) {
  const reports: CompressionReport[] = [];
  const c = createContextCompressor({
    guidelines: await loadGuidelines(),
    model: { provider: 'sim' },
    thresholds: { obs: T_OBS, hist: 100_000 },
    ...(tokenizer ? { tokenizer } : {}),
    onReport: (r) => reports.push(r),
  });
  await c.compress(conversation(observation));
  c.close();
  const report = reports.at(-1)!;
  expect(report.error).toBeUndefined();
  return { report, obs: report.events.filter((e) => e.kind === 'obs') };
}

let servers: FakeOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

describe('createContextCompressor: tokenizer', () => {
  it('the texts are over T_obs for one tokenizer and under it for the other', () => {
    expect(o200k.countTokens(RARE, PLAIN)).toBeGreaterThan(T_OBS);
    expect(wordCount(RARE)).toBeLessThan(T_OBS);
    expect(o200k.countTokens(PUNCT, PLAIN)).toBeLessThan(T_OBS);
    expect(wordCount(PUNCT)).toBeGreaterThan(T_OBS);
  });

  it('fires T_obs at an hf: tokenizer.json count and names it in the report', async () => {
    const dir = tempDir();
    const file = `hf:${join(dir, writeWordTokenizer(dir))}` as const;
    // o200k (the default) compresses RARE and leaves PUNCT; the word tokenizer does the opposite.
    expect((await obsEvents(RARE)).obs).toHaveLength(1);
    expect((await obsEvents(PUNCT)).obs).toHaveLength(0);
    const rare = await obsEvents(RARE, file);
    expect(rare.obs).toHaveLength(0);
    expect(rare.report.tokenizer).toBe(file);
    const punct = await obsEvents(PUNCT, file);
    expect(punct.obs).toHaveLength(1);
    expect(punct.obs[0]!.inputTokens).toBe(wordCount(PUNCT));
    expect(punct.report.tokenizer).toBe(file);
    expect((await obsEvents(PUNCT)).report.tokenizer).toBe('o200k');
  });

  it("fires T_obs at a server's /tokenize count (vLLM's route at the server's root)", async () => {
    const fake = await FakeOpenAiServer.start({ tokenize: wordCount });
    servers.push(fake);
    const punct = await obsEvents(PUNCT, { server: fake.url });
    expect(punct.obs).toHaveLength(1);
    expect(punct.obs[0]!.inputTokens).toBe(wordCount(PUNCT));
    expect(punct.report.tokenizer).toBe('server');
    const asked = fake.tokenizeRequests.map((r) => JSON.parse(r.raw) as { prompt: string });
    expect(asked.map((a) => a.prompt)).toContain(PUNCT);
    // No model named: vLLM's `model` is optional, an empty one would be refused as unknown.
    for (const r of fake.tokenizeRequests) expect(JSON.parse(r.raw)).not.toHaveProperty('model');
  });

  it('stops at once on an hf: file that is not there', () => {
    expect(() =>
      createContextCompressor({
        guidelines: { obs: { id: 'x', text: 'x' }, hist: { id: 'y', text: 'y' } } as never,
        model: { provider: 'sim' },
        tokenizer: 'hf:no/such/tokenizer.json',
      }),
    ).toThrow(/no such file/);
  });
});

describe('acon proxy: tokenizer', () => {
  async function proxied(tokenizer: 'hf' | 'default') {
    const upstream = await FakeOpenAiServer.start({
      handler: compressorHandler(() => reply.text('done')),
    });
    servers.push(upstream);
    const dir = tempDir();
    const file = `hf:${join(dir, writeWordTokenizer(dir))}` as const;
    const db = join(dir, 'runs.db');
    const config = ConfigSchema.parse({ context: { t_obs: T_OBS, t_hist: 100_000 } });
    const proxy = await startProxy({
      config,
      upstream: upstream.url,
      port: 0,
      host: '127.0.0.1',
      guidelines: await loadGuidelines(),
      compressor: {},
      record: db,
      log: () => {},
      ...(tokenizer === 'hf' ? { tokenizer: file } : {}),
    });
    const res = await fetch(`${proxy.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-client' },
      body: JSON.stringify({ model: 'qwen', messages: conversation(PUNCT) }),
    });
    expect(res.status).toBe(200);
    const header = res.headers.get('x-acon-compression');
    const runId = proxy.runId!;
    await proxy.close();
    const store = openRunStore(db);
    const run = store.getRun(runId);
    const rollouts = store.rollouts(runId);
    const steps = rollouts.map((r) => store.stepRecords(r.id));
    const prompts = rollouts.map((r) => store.prompts(r.id));
    const events = rollouts.flatMap((r) => store.events(r.id));
    store.close();
    return {
      file,
      header,
      events,
      run,
      rollouts,
      steps,
      prompts,
      tokenizerName: proxy.tokenizer,
    };
  }

  it('compresses at the --tokenizer count, records peaks in it and names it with the run', async () => {
    const hf = await proxied('hf');
    expect(hf.tokenizerName).toBe(hf.file);
    expect(hf.header).toMatch(/obs=1/);
    // The observation compressor saw it at the word count (the sim compressor keeps it whole).
    expect(hf.events.map((e) => [e.kind, e.inputTokens])).toEqual([['obs', wordCount(PUNCT)]]);
    expect((hf.run.params as { tokenizer?: string }).tokenizer).toBe(hf.file);
    expect(hf.rollouts).toHaveLength(1);
    const step = hf.steps[0]![0]!;
    const prompt = hf.prompts[0]![0] as ChatMessage[];
    expect(step.promptTokens).toBe(tokenCounterFor(hf.file).countMessageTokens(prompt));
    expect(step.promptTokens).not.toBe(countMessageTokens(prompt));

    const plain = await proxied('default');
    expect(plain.tokenizerName).toBe('o200k');
    expect(plain.header).toMatch(/obs=0/);
    expect(plain.events).toEqual([]);
  });
});

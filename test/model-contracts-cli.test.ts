import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApptown } from '../src/bench/apptown/index.js';
import { FakeOpenAiServer, reply, type FakeRequest } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { writeWordTokenizer } from './helpers/word-tokenizer.js';
import { SHORT_TASKS_DIR, SHORT_TASKS_ENV, taskResolver } from './helpers/env.js';

/**
 * Issue #54: against a fake that refuses what OpenAI's reasoning models refuse (`max_tokens`,
 * temperature ≠ 1, with OpenAI's error bodies), the paper's setup with reasoning models runs.
 */
let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  billedLog = [];
});

const KEY = 'sk-test-contracts-9f8e';

/**
 * Billed like a reasoning model behind a prompt cache: 96 reasoning tokens an answer (part of
 * completion_tokens, as OpenAI reports them) and the first half of every prompt cached.
 */
type Billed = {
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  cached_tokens: number;
};
let billedLog: { role: string; usage: Billed }[] = [];
const billed = (role: string, c: { prompt_tokens: number; completion_tokens: number }) => {
  const usage = {
    prompt_tokens: c.prompt_tokens,
    completion_tokens: c.completion_tokens + 96,
    reasoning_tokens: 96,
    cached_tokens: Math.floor(c.prompt_tokens / 2),
  };
  billedLog.push({ role, usage });
  return usage;
};

async function start(cutEveryOtherCompression = false) {
  const bench = createApptown({ tasksDir: SHORT_TASKS_DIR });
  // Compressions in order of first arrival, by the text they compress (their first user message).
  const compressions = new Map<string, number>();
  const handler = simBackedHandler({
    taskOf: await taskResolver(bench),
    planFor: (id) => bench.referencePlan(id),
    override: (role, req) => {
      if (!cutEveryOtherCompression || !role.endsWith('_compressor')) return undefined;
      const key = String(req.body?.messages.find((m) => m.role === 'user')?.content);
      if (!compressions.has(key)) compressions.set(key, compressions.size);
      // Every attempt of every other compression is cut mid-record, its heading intact.
      if (compressions.get(key)! % 2 === 0) return undefined;
      return reply.text('# Compressed observation\n{"items": [{"id": 1, "na', {
        finishReason: 'length',
      });
    },
    usage: billed,
  });
  server = await FakeOpenAiServer.start({ modelRules: true, handler });
  return server;
}

/** USD per 1M tokens of the models these tests run (made up: only the arithmetic is checked). */
const PRICE = { input: 2, cached_input: 0.5, output: 8 };

function config(cwd: string, url: string, roles: Record<string, string>) {
  // Thresholds low enough that the short tasks' observations and histories get compressed.
  const lines = [`context:`, `  t_obs: 64`, `  t_hist: 400`, `prices:`];
  for (const model of new Set(Object.values(roles))) {
    lines.push(
      `  ${model}: { input: ${PRICE.input}, cached_input: ${PRICE.cached_input}, output: ${PRICE.output} }`,
    );
  }
  lines.push(`endpoints:`, `  default:`, `    base_url: ${url}`, `roles:`);
  for (const [role, model] of Object.entries(roles))
    lines.push(`  ${role}:`, `    model: ${model}`);
  writeFileSync(join(cwd, 'acon.config.yaml'), `${lines.join('\n')}\n`);
}

const sentBy = (reqs: FakeRequest[], model: string) => reqs.filter((r) => r.body?.model === model);

describe('acon run with reasoning models (o4-mini agent, gpt-5-mini compressors)', () => {
  it('exits 0; no request carries max_tokens or a temperature, every one max_completion_tokens', async () => {
    const fake = await start();
    const cwd = tempDir();
    config(cwd, fake.url, {
      agent: 'o4-mini',
      obs_compressor: 'gpt-5-mini',
      hist_compressor: 'gpt-5-mini',
    });
    const res = await runAcon(
      ['run', '--bench', 'apptown', '--split', 'dev', '--strategy', 'acon'].concat([
        '--max-tasks',
        '2',
        '--provider',
        'openai',
        '--yes',
      ]),
      { cwd, env: { ...SHORT_TASKS_ENV, OPENAI_API_KEY: KEY } },
    );
    expect(res.code, res.stderr).toBe(0);
    // The fake counts prompts in o200k, as acon does: no tokenizer warning.
    expect(res.stderr).not.toMatch(/prompt tokens on its first/);
    const chats = fake.chatRequests;
    expect(sentBy(chats, 'o4-mini').length).toBeGreaterThan(0);
    expect(sentBy(chats, 'gpt-5-mini').length).toBeGreaterThan(0);
    for (const r of chats) {
      expect(r.body?.max_tokens).toBeUndefined();
      expect(r.body?.temperature).toBeUndefined();
      expect(r.body?.max_completion_tokens).toBe(4096);
    }
  });

  it('bills reasoning tokens as output and cached prompt tokens at their price, by role in runs show', async () => {
    const fake = await start();
    const cwd = tempDir();
    config(cwd, fake.url, {
      agent: 'o4-mini',
      obs_compressor: 'gpt-5-mini',
      hist_compressor: 'gpt-5-mini',
    });
    const env = { ...SHORT_TASKS_ENV, OPENAI_API_KEY: KEY };
    const args = ['run', '--bench', 'apptown', '--split', 'dev', '--strategy', 'acon'];
    const res = await runAcon([...args, '--max-tasks', '1', '--provider', 'openai', '--yes'], {
      cwd,
      env,
    });
    expect(res.code, res.stderr).toBe(0);
    const runs = JSON.parse((await runAcon(['runs', '--json'], { cwd, env })).stdout) as {
      id: string;
    }[];
    const show = await runAcon(['runs', 'show', runs[0]!.id, '--json'], { cwd, env });
    const costs = (
      JSON.parse(show.stdout) as {
        costByRole: {
          role: string;
          cachedTokens: number;
          outputTokens: number;
          reasoningTokens: number;
          costUsd: number;
        }[];
      }
    ).costByRole;
    // What the fake billed the agent's calls, as it sent them.
    const agent = billedLog.filter((b) => b.role === 'agent').map((b) => b.usage);
    const row = costs.find((c) => c.role === 'agent')!;
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(agent.length).toBeGreaterThan(0);
    // Reasoning tokens are in completion_tokens, so output counts them.
    expect(row.outputTokens).toBe(sum(agent.map((u) => u.completion_tokens)));
    expect(row.cachedTokens).toBe(sum(agent.map((u) => u.cached_tokens)));
    // Of them, the reasoning tokens (completion_tokens_details), stored per call (schema 6).
    expect(row.reasoningTokens).toBe(sum(agent.map((u) => u.reasoning_tokens)));
    expect(row.reasoningTokens).toBeGreaterThan(0);
    expect(row.cachedTokens).toBeGreaterThan(0);
    const usd = sum(
      agent.map(
        (u) =>
          ((u.prompt_tokens - u.cached_tokens) * PRICE.input +
            u.cached_tokens * PRICE.cached_input +
            u.completion_tokens * PRICE.output) /
          1e6,
      ),
    );
    expect(row.costUsd).toBeCloseTo(usd, 9);
    const table = await runAcon(['runs', 'show', runs[0]!.id, '--wide'], { cwd, env });
    expect(table.stdout).toMatch(
      /cost by role[\s\S]*role +calls +input +cached +output +reasoning +billed\$/,
    );
    const agentLine = table.stdout.split('\n').find((l) => /^agent +\d/.test(l))!;
    expect(agentLine.split(/ +/)[5]).toBe(row.reasoningTokens.toLocaleString('en-US'));
    expect(table.stdout).toContain("a reasoning model's reasoning tokens included");
  });

  it('keeps cut compressions out of every agent request and names each failed attempt in rollout show', async () => {
    const fake = await start(true);
    const cwd = tempDir();
    config(cwd, fake.url, {
      agent: 'o4-mini',
      obs_compressor: 'gpt-5-mini',
      hist_compressor: 'gpt-5-mini',
    });
    const res = await runAcon(
      ['run', '--bench', 'apptown', '--split', 'dev', '--strategy', 'acon'].concat([
        '--max-tasks',
        '2',
        '--provider',
        'openai',
        '--yes',
      ]),
      { cwd, env: { ...SHORT_TASKS_ENV, OPENAI_API_KEY: KEY } },
    );
    expect(res.code, res.stderr).toBe(0);
    const agent = sentBy(fake.chatRequests, 'o4-mini');
    expect(agent.length).toBeGreaterThan(0);
    const cutAnswers = fake.chatRequests.filter((r) => r.body?.model === 'gpt-5-mini');
    expect(cutAnswers.length).toBeGreaterThan(1);
    for (const r of agent) expect(r.raw).not.toContain('{\\"items\\": [{\\"id\\": 1, \\"na');
    const env = { ...SHORT_TASKS_ENV };
    const runs = JSON.parse((await runAcon(['runs', '--json'], { cwd, env })).stdout) as {
      id: string;
    }[];
    const show = await runAcon(['runs', 'show', runs[0]!.id, '--json'], { cwd, env });
    const rollouts = (JSON.parse(show.stdout) as { rollouts: { id: string }[] }).rollouts;
    let named = 0;
    for (const r of rollouts) {
      const out = await runAcon(['rollout', 'show', r.id], { cwd, env });
      expect(out.stderr).toBe('');
      named += out.stdout.split('FAILED (the answer was cut off at the token limit').length - 1;
    }
    // Each failed compression names why its last attempt was unusable.
    expect(named).toBeGreaterThan(0);
    // The result table counts them (failed / all compressions), and the verdict says so.
    const header = res.stdout.split('\n').find((l) => l.startsWith('condition'))!;
    expect(header).toContain('comp fail');
    const row = res.stdout.split('\n').find((l) => l.startsWith('acon'))!;
    const cell = row.slice(header.indexOf('comp fail')).trim().split(/\s+/)[0];
    expect(cell).toMatch(new RegExp(`^${named}/\\d+$`));
    expect(res.stdout).toMatch(
      new RegExp(`peak inflated by\\s+${named}/\\d+\\s+failed compressions`),
    );
    // The HTML report lists them: the condition, the count, each reason and the rollouts.
    const html = join(cwd, 'report.html');
    const rep = await runAcon(['report', runs[0]!.id, '--html', html], { cwd, env });
    expect(rep.code, rep.stderr).toBe(0);
    expect(rep.stderr).toBe('');
    const section = /<section id="failures">[\s\S]*?<\/section>/.exec(readFileSync(html, 'utf8'));
    expect(section).not.toBeNull();
    const tr = /<tr data-split="dev" data-condition="acon\[[^"]*">(.*?)<\/tr>/.exec(
      section![0],
    )?.[1];
    expect(tr, section![0]).toBeDefined();
    const cells = [...tr!.matchAll(/<td>(.*?)<\/td>/g)].map((m) => m[1]!);
    expect(cells[2]).toBe(cell);
    expect(cells[3]).toBe(
      `<ul class="reasons"><li>${named} × the answer was cut off at the token limit (finish_reason: length)</li></ul>`,
    );
    const where = [...cells[5]!.matchAll(/data-rollout="([^"]+)"/g)].map((m) => m[1]);
    expect(where.length).toBeGreaterThan(0);
    for (const id of where) expect(rollouts.map((r) => r.id)).toContain(id);
  });

  it('acon optimize with o3 as analyzer and updater finishes, and its two candidates differ', async () => {
    const fake = await start();
    const cwd = tempDir();
    config(cwd, fake.url, { analyzer: 'o3', updater: 'o3' });
    const env = { ...SHORT_TASKS_ENV, OPENAI_API_KEY: KEY };
    const res = await runAcon(
      ['optimize', '--bench', 'apptown', '--max-tasks', '2', '--candidates', '2'].concat([
        '--provider',
        'openai',
        '--yes',
      ]),
      { cwd, env },
    );
    expect(res.code, res.stderr).toBe(0);
    const o3 = sentBy(fake.chatRequests, 'o3');
    expect(o3.length).toBeGreaterThan(0);
    for (const r of o3) {
      expect(r.body?.temperature).toBeUndefined();
      expect(r.body?.max_completion_tokens).toBe(4096);
    }
    const log = await runAcon(['guidelines', 'log', '--json'], { cwd, env });
    expect(log.code, log.stderr).toBe(0);
    const versions = JSON.parse(log.stdout) as { id: string; parent: string | null }[];
    // A proposal that repeats its parent's or a sibling's text gets no version (update.ts), so
    // two versions under one parent are two different texts.
    const children = new Map<string, number>();
    for (const v of versions) {
      if (v.parent !== null) children.set(v.parent, (children.get(v.parent) ?? 0) + 1);
    }
    expect(Math.max(0, ...children.values()), log.stdout).toBeGreaterThanOrEqual(2);
  });
});

describe('a tokenizer that is not the model’s (issue #54)', () => {
  it('warns once on stderr, naming the setting, when the reported prompt tokens are >10% off', async () => {
    const fake = await start();
    const cwd = tempDir();
    config(cwd, fake.url, {
      agent: 'gpt-4.1',
      obs_compressor: 'gpt-4.1',
      hist_compressor: 'gpt-4.1',
    });
    // The agent counts in a word-level tokenizer while the server reports o200k counts.
    const path = writeWordTokenizer(cwd);
    const file = join(cwd, 'acon.config.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        '  agent:\n    model: gpt-4.1\n',
        `  agent:\n    model: gpt-4.1\n    tokenizer: hf:${path}\n`,
      ),
    );
    const res = await runAcon(
      [
        'run',
        '--bench',
        'apptown',
        '--split',
        'dev',
        '--strategy',
        'raw',
        '--max-tasks',
        '1',
        '--provider',
        'openai',
        '--yes',
      ],
      { cwd, env: { ...SHORT_TASKS_ENV, OPENAI_API_KEY: KEY } },
    );
    expect(res.code, res.stderr).toBe(0);
    const warnings = res.stderr.split('\n').filter((l) => l.includes('prompt tokens on its first'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /the agent model reported .* acon counted .* in hf:model\/tokenizer\.json/,
    );
    expect(warnings[0]).toMatch(/set roles\.agent\.tokenizer or endpoints\.default\.tokenizer/);
  });
});

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import { createApptown } from '../src/bench/apptown/index.js';
import type { RolloutShow } from '../src/report/rollout-view.js';
import { FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { SHORT_TASKS_DIR, SHORT_TASKS_ENV, taskResolver } from './helpers/env.js';
import { wordCount } from './helpers/word-tokenizer.js';

/**
 * Issue #54: `tokenizer: server` counts with the `/tokenize` route vLLM serves at the server's
 * root. The fake counts words (wordCount), which o200k never does, so a test can tell who counted.
 */
const PLAIN = { disallowedSpecial: new Set<string>() };
const T_OBS = 64;
const KEY = 'sk-test-tokenize-4c1d';

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(serveTokenize: boolean, refuses?: (text: string) => boolean) {
  const bench = createApptown({ tasksDir: SHORT_TASKS_DIR });
  const handler = simBackedHandler({
    taskOf: await taskResolver(bench),
    planFor: (id) => bench.referencePlan(id),
  });
  server = await FakeOpenAiServer.start({
    handler,
    ...(serveTokenize ? { tokenize: wordCount } : {}),
    ...(refuses ? { tokenizeRefuses: refuses } : {}),
  });
  return server;
}

function writeConfig(cwd: string, url: string) {
  writeFileSync(
    join(cwd, 'acon.config.yaml'),
    [
      'context:',
      `  t_obs: ${T_OBS}`,
      '  t_hist: 100000',
      'endpoints:',
      '  default:',
      `    base_url: ${url}`,
      '    tokenizer: server',
      'roles:',
      '  agent: { model: qwen-agent }',
      '  obs_compressor: { model: qwen-agent }',
      '  hist_compressor: { model: qwen-agent }',
      '',
    ].join('\n'),
  );
}

const RUN = ['run', '--bench', 'apptown', '--split', 'dev', '--strategy', 'acon'];
const env = { ...SHORT_TASKS_ENV, OPENAI_API_KEY: KEY };

describe('tokenizer: server (vLLM /tokenize)', () => {
  it("fires T_obs at the server's count, names it in the provenance, and asks once a text", async () => {
    const fake = await start(true);
    const cwd = tempDir();
    writeConfig(cwd, fake.url);
    const res = await runAcon([...RUN, '--max-tasks', '2', '--provider', 'openai', '--yes'], {
      cwd,
      env,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/· tokens\s+server\b/);
    // Asked at the root, vLLM's request shape, without special tokens.
    const asked = fake.tokenizeRequests.map(
      (r) => JSON.parse(r.raw) as { model: string; prompt: string; add_special_tokens: boolean },
    );
    expect(asked.length).toBeGreaterThan(0);
    for (const a of asked) {
      expect(a.model).toBe('qwen-agent');
      expect(a.add_special_tokens).toBe(false);
    }
    // The cache: no text is asked for twice (the session's probe asks for 'acon' once more).
    const prompts = asked.map((a) => a.prompt).filter((p) => p !== 'acon');
    expect(new Set(prompts).size).toBe(prompts.length);

    const runs = JSON.parse((await runAcon(['runs', '--json'], { cwd, env })).stdout) as {
      id: string;
    }[];
    const show = await runAcon(['runs', 'show', runs[0]!.id, '--json'], { cwd, env });
    const ids = (JSON.parse(show.stdout) as { rollouts: { id: string }[] }).rollouts.map(
      (r) => r.id,
    );
    const views: RolloutShow[] = [];
    for (const id of ids) {
      const out = await runAcon(['rollout', 'show', id, '--json'], { cwd, env });
      expect(out.stderr).toBe('');
      views.push(JSON.parse(out.stdout) as RolloutShow);
    }
    const obs = views
      .flatMap((v) => v.steps.flatMap((s) => s.compressions))
      .filter((e) => e.kind === 'obs');
    expect(obs.length).toBeGreaterThan(0);
    let differs = 0;
    for (const e of obs) {
      expect(e.inputTokens).toBe(wordCount(e.input));
      expect(e.inputTokens).toBeGreaterThan(T_OBS);
      if (o200k.countTokens(e.input, PLAIN) !== e.inputTokens) differs += 1;
    }
    expect(differs).toBeGreaterThan(0);
    // Every observation was asked for: the threshold read the server's count, not an estimate.
    const askedSet = new Set(prompts);
    for (const v of views) {
      for (const s of v.steps) for (const o of s.observations) expect(askedSet.has(o)).toBe(true);
    }
  });

  it('counts what the server refused in o200k and says how many counts were estimated', async () => {
    // Content-based, so the same texts fail however the requests are ordered.
    const refused = (text: string) => text.length > 40 && text.length % 5 === 0;
    const fake = await start(true, refused);
    const cwd = tempDir();
    writeConfig(cwd, fake.url);
    const res = await runAcon(
      [...RUN, '--max-tasks', '2', '--provider', 'openai', '--yes', '--json'],
      { cwd, env },
    );
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as {
      provenance: {
        tokenizer: string;
        tokenizerEstimates?: { estimated: number; counted: number };
      };
      verdict: string;
    };
    const refusedAsked = new Set(
      fake.tokenizeRequests
        .map((r) => (JSON.parse(r.raw) as { prompt: string }).prompt)
        .filter(refused),
    );
    expect(refusedAsked.size).toBeGreaterThan(0);
    const e = out.provenance.tokenizerEstimates!;
    expect(out.provenance.tokenizer).toBe('server');
    expect(e.estimated).toBeGreaterThanOrEqual(refusedAsked.size);
    expect(e.estimated).toBeLessThan(e.counted);
    expect(out.verdict).toContain(
      `Server tokenizer: ${e.estimated} of ${e.counted} counts estimated in o200k`,
    );
    const text = await runAcon([...RUN, '--max-tasks', '2', '--provider', 'openai', '--yes'], {
      cwd,
      env,
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.replace(/\s+/g, ' ')).toMatch(
      /· tokens server \(\d+ of \d+ counts estimated in o200k\)/,
    );
  });

  it('stops at session start with a ConfigError naming the setting when /tokenize is a 404', async () => {
    const fake = await start(false);
    const cwd = tempDir();
    writeConfig(cwd, fake.url);
    const res = await runAcon([...RUN, '--max-tasks', '1', '--provider', 'openai', '--yes'], {
      cwd,
      env,
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/endpoints\.default\.tokenizer: server: .*\/tokenize.*HTTP 404/);
    expect(res.stdout).toBe('');
    expect(fake.chatRequests).toHaveLength(0);
    expect(existsSync(join(cwd, 'runs'))).toBe(false);
  });
});

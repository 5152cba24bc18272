import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { RolloutShow } from '../src/report/rollout-view.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { SHORT_TASKS_ENV } from './helpers/env.js';
import { wordCount, writeWordTokenizer } from './helpers/word-tokenizer.js';

/**
 * Issue #54: thresholds and peaks are counted in the agent's tokenizer, and the result names it.
 * The sim provider runs the same strategies as a real model, so its run shows what counts.
 */
const PLAIN = { disallowedSpecial: new Set<string>() };
const T_OBS = 64;

async function runWith(tokenizer: string | undefined, cwd = tempDir()) {
  const agent = tokenizer ? `  agent:\n    model: gpt-4.1\n    tokenizer: ${tokenizer}\n` : '';
  writeFileSync(
    join(cwd, 'acon.config.yaml'),
    `context:\n  t_obs: ${T_OBS}\n  t_hist: 100000\n${agent ? `roles:\n${agent}` : ''}`,
  );
  const env = { ...SHORT_TASKS_ENV };
  const res = await runAcon(
    ['run', '--bench', 'apptown', '--split', 'dev', '--strategy', 'acon', '--max-tasks', '2'],
    { cwd, env },
  );
  expect(res.code, res.stderr).toBe(0);
  const runs = JSON.parse((await runAcon(['runs', '--json'], { cwd, env })).stdout) as {
    id: string;
  }[];
  const show = await runAcon(['runs', 'show', runs[0]!.id, '--json'], { cwd, env });
  const ids = (JSON.parse(show.stdout) as { rollouts: { id: string }[] }).rollouts.map((r) => r.id);
  const views: RolloutShow[] = [];
  for (const id of ids) {
    const out = await runAcon(['rollout', 'show', id, '--json'], { cwd, env });
    expect(out.stderr).toBe('');
    views.push(JSON.parse(out.stdout) as RolloutShow);
  }
  return { stdout: res.stdout, views };
}

describe('the agent tokenizer (tokenizer: cl100k)', () => {
  it('fires T_obs at cl100k counts and names the tokenizer in the provenance', async () => {
    const { stdout, views } = await runWith('cl100k');
    // The provenance line may wrap at the terminal width.
    expect(stdout).toMatch(/· tokens\s+cl100k\b/);
    const events = views.flatMap((v) => v.steps.flatMap((s) => s.compressions));
    const obs = events.filter((e) => e.kind === 'obs');
    expect(obs.length).toBeGreaterThan(0);
    let differs = 0;
    for (const e of obs) {
      // Counted in cl100k, and over T_obs in it.
      expect(e.inputTokens).toBe(cl100k.countTokens(e.input, PLAIN));
      expect(e.inputTokens).toBeGreaterThan(T_OBS);
      if (o200k.countTokens(e.input, PLAIN) !== e.inputTokens) differs += 1;
    }
    // The encodings disagree on these observations, so the check above can tell them apart.
    expect(differs).toBeGreaterThan(0);
    // An observation that stayed as it was is within T_obs in cl100k.
    const compressed = new Set(obs.map((e) => e.input));
    for (const v of views) {
      for (const s of v.steps) {
        for (const o of s.observations) {
          if (!compressed.has(o) && cl100k.countTokens(o, PLAIN) > T_OBS) {
            // Only an observation no later prompt showed (the last step's) is never compressed.
            expect(s.index).toBe(v.steps.length - 1);
          }
        }
      }
    }
  });

  it('counts in o200k by default and says so', async () => {
    const { stdout, views } = await runWith(undefined);
    // The provenance line may wrap at the terminal width.
    expect(stdout).toMatch(/· tokens\s+o200k\b/);
    const obs = views
      .flatMap((v) => v.steps.flatMap((s) => s.compressions))
      .filter((e) => e.kind === 'obs');
    expect(obs.length).toBeGreaterThan(0);
    for (const e of obs) expect(e.inputTokens).toBe(o200k.countTokens(e.input, PLAIN));
  });
});

describe("the model's own tokenizer (tokenizer: hf:PATH)", () => {
  it('fires T_obs at the counts of that tokenizer.json and names it in the provenance', async () => {
    const cwd = tempDir();
    const path = writeWordTokenizer(cwd);
    const { stdout, views } = await runWith(`hf:${path}`, cwd);
    expect(stdout).toMatch(new RegExp(`· tokens\\s+hf:${path.replace('.', '\\.')}`));
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
  });

  it('stops before storing anything when the file is not there, naming it', async () => {
    const cwd = tempDir();
    writeFileSync(
      join(cwd, 'acon.config.yaml'),
      'roles:\n  agent:\n    model: gpt-4.1\n    tokenizer: hf:models/none/tokenizer.json\n',
    );
    const res = await runAcon(
      ['run', '--bench', 'apptown', '--split', 'dev', '--strategy', 'acon', '--max-tasks', '1'],
      { cwd, env: { ...SHORT_TASKS_ENV } },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/models\/none\/tokenizer\.json.*no such file/);
    expect(res.stdout).toBe('');
    expect(existsSync(join(cwd, 'runs'))).toBe(false);
  });
});

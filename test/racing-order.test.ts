import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../src/errors.js';
import type { MeteredLlmClient } from '../src/llm/index.js';
import { optimize } from '../src/optimize/optimize.js';
import { hashUnit, lossyEnv, optimizeParams } from './helpers/env.js';

/**
 * Issue 56: racing's decisions are a function of the rollouts' outcomes, not of the order in
 * which concurrent rollouts finish. The same utility stage runs twice, the model's answers
 * held back by a different number of event-loop turns per task in each (no wall-clock wait),
 * so the rollouts of a round finish in two different orders; the stage records must agree.
 */

const PARAMS = optimizeParams({ phases: ['ut'], maxTasks: 10, candidates: 3 });

/**
 * Holds each answer about a task for a number of event-loop turns that `variant` decides, and
 * lists the tasks of the agent's answers in the order they came back.
 */
function reordered(llm: MeteredLlmClient, variant: string, answered: string[]): MeteredLlmClient {
  return {
    ...llm,
    chat: async (req, ctx) => {
      const turns = Math.floor(hashUnit(`${variant}:${ctx.taskId ?? ''}`) * 400);
      for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
      const out = await llm.chat(req, ctx);
      if (ctx.role === 'agent') answered.push(ctx.taskId ?? '');
      return out;
    },
  };
}

const envOf = (dir?: string) =>
  lossyEnv({
    shortTasks: true,
    provider: 'sim',
    config: { run: { concurrency: 4 } },
    ...(dir && { dir }),
  });

async function stageUnder(variant: string) {
  const env = envOf();
  const answered: string[] = [];
  const r = await optimize({ ...env, llm: reordered(env.llm, variant, answered) }, PARAMS, {
    command: 'test',
  });
  if ('dryRun' in r) throw new Error('unexpected dry run');
  env.store.close();
  return { stages: r.stages, answered };
}

/** Runs the stage until `stopAt` candidate rollouts are stored, then resumes it in a new process's place. */
async function killedAndResumed(stopAt: number) {
  const env = envOf();
  let candidateRollouts = 0;
  const first = optimize(env, PARAMS, {
    command: 'test',
    progress: (label, _done, _total, outcome) => {
      if (!label.endsWith(' candidates') || !outcome) return;
      candidateRollouts += 1;
      if (candidateRollouts === stopAt) env.abort.abort();
    },
  });
  await expect(first).rejects.toBeInstanceOf(InterruptedError);
  const runId = env.store.listRuns()[0]!.id;
  const stored = env.store.rollouts(runId).length;
  env.store.close();
  const again = envOf(env.dir);
  const logged: string[] = [];
  const r = await optimize(again, PARAMS, {
    command: 'test',
    resume: runId,
    log: (line) => logged.push(line),
  });
  if ('dryRun' in r) throw new Error('unexpected dry run');
  again.store.close();
  return { stages: r.stages, stored, logged };
}

describe('racing under two completion orders', () => {
  it('drops the same candidates at the same tasks and records the same stage', async () => {
    const a = await stageUnder('a');
    const b = await stageUnder('b');
    // The two runs did finish their rollouts in different orders...
    expect(b.answered).not.toEqual(a.answered);
    // ...and recorded the same stages, byte for byte: candidates, report lines, tallies, rollouts
    // saved.
    expect(JSON.stringify(b.stages)).toBe(JSON.stringify(a.stages));
    // Racing did drop candidates there (successive halving drops at least one of three at the
    // first rung), so the drops are what agree, not a stage where everyone ran everything.
    const [stage] = a.stages;
    expect(stage!.selectionRollouts!.saved).toBeGreaterThan(0);
    expect(
      stage!.candidates.some((c) => /^dropped by racing after \d+\/10 tasks/.test(c.reason)),
    ).toBe(true);

    // --resume of a run stopped inside the race (after the first rung's 3 × 3 rollouts and one
    // of the second's) replays the rungs over the stored rollouts and re-derives the same drops:
    // the same stage record as the uninterrupted runs, every drop logged again.
    const resumed = await killedAndResumed(10);
    expect(resumed.stored).toBeGreaterThan(0);
    expect(JSON.stringify(resumed.stages)).toBe(JSON.stringify(a.stages));
    const drops = stage!.candidates.filter((c) => c.reason.startsWith('dropped by racing'));
    for (const c of drops)
      expect(resumed.logged).toContain(`ut:obs:r1 candidates: ${c.id} ${c.reason}`);
  }, 600_000);
});

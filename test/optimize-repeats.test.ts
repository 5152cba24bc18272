import { describe, expect, it } from 'vitest';
import { optimize } from '../src/optimize/optimize.js';
import { planOptimize } from '../src/optimize/plan.js';
import { repeatUnits } from '../src/optimize/repeats.js';
import { makeEnv, optimizeParams } from './helpers/env.js';

/** Issue 56: `--repeats N` runs each selection task N times, each its own seed and rollout. */
describe('optimize --repeats', () => {
  it('makes each repeat its own unit: the task once as itself, then one id and seed per repeat', () => {
    const t = {
      id: 'a',
      split: 'dev',
      instruction: 'x',
      apps: ['wallet'],
      difficulty: 1,
      referenceLength: 1,
    };
    const units = repeatUnits([t, { ...t, id: 'b' }], 3);
    expect(units.map((u) => u.id)).toEqual(['a', 'b', 'a~r2', 'b~r2', 'a~r3', 'b~r3']);
    expect(units[2]!.repeat).toEqual({ of: 'a', index: 2 });
    expect(repeatUnits([t], 1)).toEqual([t]);
  });

  it('plans N times the selection rollouts and says so', () => {
    const env = makeEnv({ provider: 'sim', shortTasks: true });
    const t = {
      id: 'a',
      split: 'dev',
      instruction: 'x',
      apps: [],
      difficulty: 1,
      referenceLength: 1,
    };
    const tasks = { train: [t], select: [t, t], eval: [t] };
    const one = planOptimize(optimizeParams({ repeats: 1 }), env.config, tasks, true);
    const three = planOptimize(optimizeParams({ repeats: 3 }), env.config, tasks, true);
    // Per stage the parent and 2 candidates on 2 tasks × 2 more repeats; the pair check's learned
    // option and v0 on those repeats.
    const stages = one.stages.length;
    expect(three.rollouts - one.rollouts).toBe(stages * 2 * 2 * 3 + 2 * 2 * 2);
    expect(three.repeats).toBe(3);
  });

  it('runs the repeats as rollouts of their own under their own request seed', async () => {
    const env = makeEnv({ provider: 'sim', shortTasks: true, config: { context: { t_obs: 256 } } });
    const r = await optimize(
      env,
      optimizeParams({ maxTasks: 3, phases: ['ut'], candidates: 1, repeats: 2 }),
      { command: 'test' },
    );
    if ('dryRun' in r) throw new Error('unexpected dry run');
    const rows = env.store.rollouts(r.runId).filter((x) => x.split === 'dev');
    const repeats = rows.filter((x) => x.task_id.endsWith('~r2'));
    expect(repeats.length).toBeGreaterThan(0);
    // Every repeat has its first run beside it, under the same condition.
    for (const x of repeats)
      expect(
        rows.some(
          (y) => y.condition === x.condition && y.task_id === x.task_id.replace(/~r2$/, ''),
        ),
      ).toBe(true);
    // The repeat's agent calls carry seed 2 (part of the call-cache key); the first run's none.
    const agent = env.store.calls({ rolloutId: repeats[0]!.id, role: 'agent' });
    expect(agent.length).toBeGreaterThan(0);
    expect(agent.every((c) => c.request.includes('"seed":2'))).toBe(true);
    const first = rows.find((y) => y.task_id === repeats[0]!.task_id.replace(/~r2$/, ''))!;
    expect(env.store.calls({ rolloutId: first.id, role: 'agent' })[0]!.request).not.toContain(
      '"seed"',
    );
  }, 300_000);
});

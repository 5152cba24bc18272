import { describe, expect, it } from 'vitest';
import { formatPlan, rolloutLimitLine, sharedTasksWarning, type OptimizePlan } from './plan.js';

const splits = { trainSplit: 'train', selectSplit: 'dev', evalSplit: 'test_normal' };
const tasks = (...ids: string[]) => ids.map((id) => ({ id }));

describe('sharedTasksWarning', () => {
  it('says nothing when every split has its own tasks', () => {
    expect(
      sharedTasksWarning(splits, { train: tasks('a'), select: tasks('b'), eval: tasks('c') }),
    ).toBeNull();
  });

  it('names how many tasks each pair of roles shares (--tasks gives every split the same list)', () => {
    const same = tasks('a', 'b');
    const w = sharedTasksWarning(splits, { train: same, select: same, eval: same });
    expect(w).toContain('2 in train (train) and selection (dev)');
    expect(w).toContain('2 in train (train) and evaluation (test_normal)');
    expect(w).toContain('not held out');
    expect(w).toContain('APPWORLD_ROOT');
  });

  it('catches one task shared by the selection and evaluation splits', () => {
    const w = sharedTasksWarning(splits, {
      train: tasks('a'),
      select: tasks('b', 'x'),
      eval: tasks('x', 'c'),
    });
    expect(w).toContain('1 in selection (dev) and evaluation (test_normal)');
    expect(w).not.toContain('train (train) and');
  });
});

describe('the plan and --max-rollouts', () => {
  const plan = (maxRollouts: number | null): OptimizePlan => ({
    stages: ['ut:obs:r1'],
    rollouts: 120,
    calls: { agent: 1, compressor: 1, analyzer: 1, updater: 1 },
    costUsd: 0,
    simulated: true,
    tasks: { train: 4, select: 4, eval: 4 },
    repeats: 1,
    rule: '',
    maxRollouts,
  });

  it('says the planned rollouts fit when the limit holds them all', () => {
    expect(rolloutLimitLine(plan(120))).toBe('max rollouts: 120, fits (up to 120 planned)');
    expect(formatPlan(plan(500))).toContain('\n  max rollouts: 500, fits (up to 120 planned)');
  });

  it('says after how many of the planned rollouts the run stops', () => {
    expect(formatPlan(plan(50))).toContain(
      '\n  max rollouts: 50, stops after 50 of ~120 planned rollouts (resume with a larger --max-rollouts)',
    );
  });

  it('prints no limit line without one', () => {
    expect(formatPlan(plan(null))).not.toContain('max rollouts');
  });
});

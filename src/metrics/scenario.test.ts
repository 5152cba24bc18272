import { describe, expect, it } from 'vitest';
import type { ConditionMetrics } from '../domain/condition-metrics.js';
import { conditionTable } from '../report/table.js';
import { scenarioGoalCompletion, scenarioOf } from './scenario.js';

describe('scenarioOf', () => {
  it.each([
    ['82e2fac_1', '82e2fac'],
    ['82e2fac_12', '82e2fac'],
    ['fake_song_1', 'fake_song'],
    ['solo', 'solo'],
    ['_1', '_1'],
  ])('maps %s to %s', (id, scenario) => {
    expect(scenarioOf(id)).toBe(scenario);
  });
});

describe('scenarioGoalCompletion', () => {
  it('counts a scenario only when all of its tasks pass', () => {
    // Three scenarios: a (all 3 pass), b (1 of 3 fails), c (its single task passes).
    const outcomes = [
      { taskId: 'aaa1111_1', success: true },
      { taskId: 'aaa1111_2', success: true },
      { taskId: 'aaa1111_3', success: true },
      { taskId: 'bbb2222_1', success: true },
      { taskId: 'bbb2222_2', success: false },
      { taskId: 'bbb2222_3', success: true },
      { taskId: 'ccc3333_1', success: true },
    ];
    expect(scenarioGoalCompletion(outcomes)).toEqual({ scenarios: 3, completed: 2, sgc: 2 / 3 });
    // Task goal completion of the same set is 6/7: SGC is the stricter number.
    expect(outcomes.filter((o) => o.success)).toHaveLength(6);
  });

  it('does not depend on the order of the outcomes', () => {
    const outcomes = [
      { taskId: 'x_2', success: false },
      { taskId: 'y_1', success: true },
      { taskId: 'x_1', success: true },
    ];
    expect(scenarioGoalCompletion(outcomes).sgc).toBe(0.5);
    expect(scenarioGoalCompletion([...outcomes].reverse()).sgc).toBe(0.5);
  });

  it('is 0 over no outcomes', () => {
    expect(scenarioGoalCompletion([])).toEqual({ scenarios: 0, completed: 0, sgc: 0 });
  });
});

describe('the SGC column of result tables', () => {
  const row = (condition: string, sgc?: number): ConditionMetrics => ({
    condition,
    tasks: 3,
    accuracy: 2 / 3,
    accuracyCi: [0, 1],
    meanPeakTokens: 1000,
    medianPeakTokens: 1000,
    meanPeakPromptTokens: null,
    peakReductionVsRaw: null,
    meanSteps: 3,
    stepsVsRaw: null,
    costPerTask: 0,
    fullCostPerTask: null,
    meanTotalTokens: 0,
    meanDependency: null,
    compressorCostShare: 0,
    eventsPerTask: 0,
    compressionEvents: 0,
    failedCompressions: 0,
    contextFallbacks: 0,
    exactMatch: null,
    f1: null,
    ...(sgc === undefined ? {} : { sgc }),
  });
  const p = {
    runId: 'run-1',
    bench: 'appworld',
    split: 'dev',
    provider: 'openai',
    models: {},
    simulated: false,
  };

  it('shows SGC next to the accuracy when the rows have it', () => {
    const text = conditionTable([row('raw', 0.5)], p);
    expect(text).toMatch(/acc% \[95% CI\]\s+SGC%/);
    expect(text).toMatch(/^raw\s+3\s+66\.7 \[0\.0–100\.0\]\s+50\.0\s/m);
    expect(text).toContain('scenario goal completion');
  });

  it('has no SGC column for benchmarks without scenarios', () => {
    const text = conditionTable([row('raw')], { ...p, bench: 'apptown' });
    expect(text).not.toContain('SGC');
  });
});

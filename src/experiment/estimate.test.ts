import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../config/schema.js';
import type { TaskInfo } from '../bench/types.js';
import { estimateCostUsd, meanStepsOf, rolloutCalls } from './estimate.js';
import { estimateRun } from './run-conditions.js';

const config = ConfigSchema.parse({});
const task = (id: string, referenceLength: number) => ({ id, referenceLength }) as TaskInfo;
const tasks = [task('a', 10), task('b', 30)];

describe('the paid-run cost model', () => {
  it('takes steps from the reference lengths (×1.2 + 1) and prices calls at list prices', () => {
    expect(meanStepsOf(tasks)).toBeCloseTo(25, 12);
    const calls = { ...rolloutCalls(4, 2, 25), analyzer: 0, updater: 0 };
    expect(calls).toMatchObject({ agent: 100, compressor: 25 });
    expect(estimateCostUsd(calls, config)).toBeGreaterThan(0);
  });

  it('counts compressor calls only for strategies that compress (compare)', () => {
    const baselines = estimateRun(['raw', 'masking', 'fifo'], tasks, config, false);
    expect(baselines).toMatchObject({ rollouts: 6, calls: { agent: 150, compressor: 0 } });
    const acon = estimateRun(['raw', 'naive', 'acon'], tasks, config, false);
    expect(acon.calls).toEqual({ agent: 150, compressor: 50 });
    expect(acon.costUsd).toBeGreaterThan(baselines.costUsd);
    expect(estimateRun(['acon'], tasks, config, true).costUsd).toBe(0);
  });
});

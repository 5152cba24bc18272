import { describe, expect, it } from 'vitest';
import { createApptown, percentile, splitStats } from '../src/bench/apptown/index.js';

describe('apptown observation sizes and raw prompts', () => {
  it('runs long with big prompts: test raw peak median >= 8K tokens, observations over T_obs in every split', async () => {
    // Issue 13: AppWorld's regime (20-40 steps, ~10K-token peaks), where compression matters.
    const stats = await splitStats(createApptown());
    expect(stats.map((s) => s.split).sort()).toEqual(['dev', 'test', 'train']);
    for (const s of stats) {
      expect(s.steps.median, s.split).toBeGreaterThanOrEqual(20);
      expect(s.steps.p90, s.split).toBeGreaterThanOrEqual(35);
      expect(s.rawPeak.p90).toBeGreaterThanOrEqual(s.rawPeak.median);
      expect(s.rawPeak.max).toBeGreaterThanOrEqual(s.rawPeak.p90);
      // Observation compression (T_obs = 1024) has work in every split.
      expect(s.overThreshold, s.split).toBeGreaterThanOrEqual(s.tasks);
      expect(s.observations).toBeGreaterThan(s.tasks * 20);
    }
    const test = stats.find((s) => s.split === 'test')!;
    expect(test.rawPeak.median).toBeGreaterThanOrEqual(8000);
    // Issue 22, benchmark scale: lists return short records as AppWorld's do (apps/brief.ts), which
    // took the test reference's raw peak median from 20,614 to 15,938 tokens; whole rows in lists
    // would put it back above 17K.
    expect(test.rawPeak.median).toBeLessThan(17_000);
    expect(test.multiApp).toBeGreaterThanOrEqual(test.tasks * 0.4);
  });

  it('takes nearest-rank percentiles', () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 90)).toBe(9);
    expect(percentile(values, 100)).toBe(10);
    expect(percentile([], 90)).toBe(0);
  });
});

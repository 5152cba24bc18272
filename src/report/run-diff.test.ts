import { describe, expect, it } from 'vitest';
import type { RolloutMetrics } from '../domain/rollout-metrics.js';
import { accuracyRetention, diffRuns } from './run-diff.js';

const m = (success: boolean, peak: number): RolloutMetrics => ({
  success,
  score: success ? 1 : 0,
  steps: 5,
  peakInputTokens: peak,
  peakPromptTokens: null,
  byRole: {},
  costUsd: 0,
  fullCostUsd: null,
  dependency: null,
  compressionEvents: 0,
  failedCompressions: 0,
  reactiveEvents: 0,
  tokensSaved: 0,
  wallMs: 0,
});
const r = (condition: string, task_id: string, success: boolean, peak: number) => ({
  condition,
  task_id,
  metrics: m(success, peak),
});

describe('accuracyRetention', () => {
  it('is student accuracy over teacher accuracy', () => {
    expect(accuracyRetention(0.521, 0.565)).toBeCloseTo(0.922, 3);
    expect(accuracyRetention(0.5, 0)).toBeNull();
  });
});

describe('diffRuns', () => {
  it('compares a shared condition on the tasks both runs finished', () => {
    const a = [r('acon', 't1', true, 1000), r('acon', 't2', true, 1000), r('acon', 't3', true, 1)];
    const b = [r('acon', 't1', true, 900), r('acon', 't2', false, 800), r('raw', 't1', true, 5)];
    const [row] = diffRuns(a, b, 0);
    expect(row).toMatchObject({ condition: 'acon', tasks: 2, retention: 0.5 });
    expect(row!.peakChange).toBeCloseTo(0.15, 10);
  });
  it('pairs single conditions with different labels', () => {
    const rows = diffRuns(
      [r('acon[obs-1,hist-1]', 't1', true, 10)],
      [r('acon[obs-2,hist-2]', 't1', true, 10)],
      0,
    );
    expect(rows.map((x) => x.condition)).toEqual(['acon[obs-1,hist-1] | acon[obs-2,hist-2]']);
  });
});

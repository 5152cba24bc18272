import { describe, expect, it } from 'vitest';
import type { RolloutRow } from '../domain/index.js';
import { failureReason } from './run-show.js';

function rollout(over: Partial<RolloutRow>): RolloutRow {
  return {
    id: 'r1',
    run_id: 'run-1',
    condition: 'raw',
    task_id: 't1',
    split: 'dev',
    strategy: 'raw',
    guideline_obs: null,
    guideline_hist: null,
    status: 'completed',
    success: false,
    score: 0.5,
    steps: 12,
    peak_input_tokens: 100,
    cost_usd: 0,
    metrics: {} as RolloutRow['metrics'],
    evaluation: {
      success: false,
      score: 0.5,
      details: [
        { name: 'complete_task', passed: false, detail: 'never called' },
        { name: 'no collateral damage', passed: true, detail: 'no other table changed' },
      ],
    },
    error: null,
    started_at: '',
    finished_at: '',
    episode_meta: null,
    ...over,
  };
}

describe('failureReason', () => {
  it('names the failed checks without repeating a check name in its detail', () => {
    expect(failureReason(rollout({}))).toBe('complete_task: never called');
  });

  it('says first that a rollout was stopped at the step limit', () => {
    expect(failureReason(rollout({ status: 'max_steps', steps: 50 }))).toBe(
      'stopped at the step limit (50 steps, agent.max_steps); complete_task: never called',
    );
  });

  it('is null for a success', () => {
    expect(failureReason(rollout({ success: true }))).toBeNull();
  });
});

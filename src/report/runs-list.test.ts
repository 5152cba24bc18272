import { describe, expect, it } from 'vitest';
import { runsListTable, type RunListItem } from './runs-list.js';

const item = (conditions: RunListItem['conditions']): RunListItem => ({
  id: 'run-20261202-000000-abcd',
  kind: 'optimize',
  command: 'optimize',
  bench: 'apptown',
  provider: 'sim',
  models: { agent: 'sim/gpt-4.1' },
  simulated: true,
  params: {},
  status: 'finished',
  summary: null,
  created_at: '2026-12-02T00:00:00Z',
  finished_at: null,
  conditions,
  infraFailures: 0,
});
const c = (split: string, condition: string, rollouts: number, successes: number) => ({
  split,
  condition,
  rollouts,
  successes,
  accuracy: successes / rollouts,
});

describe('runsListTable', () => {
  it('leads with the held-out split and puts train last, whatever order the store gives', () => {
    const text = runsListTable(
      [item([c('train', 'raw', 1, 1), c('dev', 'raw', 4, 3), c('test', 'raw', 40, 34)])],
      { wide: true },
    );
    expect(text).toContain('test: raw 85.0 (40); dev: raw 75.0 (4); train: raw 100.0 (1)');
  });
});

import { describe, expect, it } from 'vitest';
import { embeddedRollouts } from './embedded-rollouts.js';

const row = (split: string, condition: string, task: number, success: boolean) => ({
  id: `${split}/${condition}/${task}`,
  split,
  condition,
  success,
});

describe('which trajectories the report embeds', () => {
  // Conditions listed in row order (condition, task), as the store returns them: `acon[…]` rows
  // come before `fifo`, whose failures a plain "failures first" cut would never reach.
  const rows = [
    ...Array.from({ length: 6 }, (_, i) => row('test', 'acon[obs-0001,-]', i, i % 2 === 0)),
    ...Array.from({ length: 6 }, (_, i) => row('test', 'fifo', i, false)),
    ...Array.from({ length: 3 }, (_, i) => row('dev', 'raw', i, i === 0)),
  ];

  it('takes failures in turn from every split and condition before any success', () => {
    const ids = embeddedRollouts(rows, 6).map((r) => r.id);
    expect(ids).toEqual([
      'dev/raw/1',
      'test/acon[obs-0001,-]/1',
      'test/fifo/0',
      'dev/raw/2',
      'test/acon[obs-0001,-]/3',
      'test/fifo/1',
    ]);
  });

  it('fills the budget with the rest of the failures, then with successes', () => {
    const chosen = embeddedRollouts(rows, 13);
    const failures = rows.filter((r) => !r.success).length;
    expect(failures).toBe(11);
    expect(chosen.slice(0, failures).every((r) => !r.success)).toBe(true);
    expect(chosen.slice(failures).map((r) => r.id)).toEqual([
      'dev/raw/0',
      'test/acon[obs-0001,-]/0',
    ]);
  });

  it('embeds every rollout of a run within the budget, each once', () => {
    const chosen = embeddedRollouts(rows, 100);
    expect(chosen).toHaveLength(rows.length);
    expect(new Set(chosen.map((r) => r.id)).size).toBe(rows.length);
  });
});

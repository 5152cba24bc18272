import { describe, expect, it } from 'vitest';
import { embeddedRollouts, splitPriority } from './embedded-rollouts.js';

const row = (split: string, condition: string, task: number, success: boolean) => ({
  id: `${split}/${condition}/${task}`,
  split,
  condition,
  success,
});

describe('which trajectories the report embeds', () => {
  // In row order (condition, task), as the store returns them: `acon[…]` rows come before
  // `fifo`, whose failures a plain "failures first" cut would never reach.
  const rows = [
    ...Array.from({ length: 6 }, (_, i) => row('test', 'acon[obs-0001,-]', i, i % 2 === 0)),
    ...Array.from({ length: 6 }, (_, i) => row('test', 'fifo', i, false)),
    ...Array.from({ length: 3 }, (_, i) => row('dev', 'raw', i, i === 0)),
  ];

  it('takes failures in turn from every condition of a split, splits one after another', () => {
    expect(embeddedRollouts(rows, 6).map((r) => r.id)).toEqual([
      'dev/raw/1',
      'dev/raw/2',
      'test/acon[obs-0001,-]/1',
      'test/fifo/0',
      'test/acon[obs-0001,-]/3',
      'test/fifo/1',
    ]);
  });

  it("puts an optimize's evaluation split first, then its selection and train splits", () => {
    const params = { evalSplit: 'test', selectSplit: 'dev', trainSplit: 'train' };
    expect(splitPriority(params)).toEqual(['test', 'dev', 'train']);
    expect(splitPriority({ split: 'dev' })).toEqual([]);
    const chosen = embeddedRollouts(rows, 9, splitPriority(params)).map((r) => r.id);
    expect(chosen).toEqual([
      'test/acon[obs-0001,-]/1',
      'test/fifo/0',
      'test/acon[obs-0001,-]/3',
      'test/fifo/1',
      'test/acon[obs-0001,-]/5',
      'test/fifo/2',
      'test/fifo/3',
      'test/fifo/4',
      'test/fifo/5',
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

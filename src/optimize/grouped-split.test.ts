import { describe, expect, it } from 'vitest';
import type { TaskInfo } from '../bench/types.js';
import { groupedSelection, taskPatterns, unseenPatterns } from './grouped-split.js';

const task = (id: string, template?: string, apps = ['wallet']): TaskInfo => ({
  id,
  split: 'train',
  instruction: id,
  apps,
  difficulty: 1,
  referenceLength: 1,
  ...(template ? { template } : {}),
});

const pool = Array.from({ length: 40 }, (_, i) =>
  task(`t${i}`, [`p${i % 10}`, `q${i % 7}`].join('+')),
);

describe('groupedSelection', () => {
  it('puts every task of a held-out pattern into selection and none into training', () => {
    const s = groupedSelection(pool, 12, 42);
    expect(s.select.length).toBeGreaterThan(0);
    expect(s.select.length).toBeLessThanOrEqual(12);
    expect(s.train.length + s.select.length).toBe(pool.length);
    const trainPatterns = new Set(s.train.flatMap(taskPatterns));
    for (const p of s.heldOut) expect(trainPatterns.has(p)).toBe(false);
    for (const t of s.select) expect(taskPatterns(t).some((p) => s.heldOut.includes(p))).toBe(true);
    // Selection sees a pattern training never used, on every task.
    expect(unseenPatterns(s.select, s.train)).toEqual({
      unseen: s.select.length,
      total: s.select.length,
    });
  });
  it('is seeded: the same seed the same split, another seed another', () => {
    const a = groupedSelection(pool, 12, 42);
    expect(groupedSelection(pool, 12, 42)).toEqual(a);
    const others = [1, 2, 3, 4, 5].map((seed) => groupedSelection(pool, 12, seed).heldOut.join());
    expect(others.some((h) => h !== a.heldOut.join())).toBe(true);
  });
  it('groups tasks without a template by their app mix', () => {
    expect(taskPatterns(task('x', undefined, ['shop', 'files']))).toEqual(['files+shop']);
  });
});

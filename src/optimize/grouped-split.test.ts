import { describe, expect, it } from 'vitest';
import type { TaskInfo } from '../bench/types.js';
import { InvalidInputError } from '../errors.js';
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
  it('holds out the least used pattern, cut to size, when no whole pattern fits', () => {
    // Every pattern has 3+ tasks; a trial's --max-tasks 2 must not get an empty selection.
    const small = Array.from({ length: 9 }, (_, i) =>
      task(`s${i}`, i < 3 ? 'a' : i < 7 ? 'b' : 'c'),
    );
    const s = groupedSelection(small.slice(0, 7), 2, 42);
    expect(s.heldOut).toEqual(['a']);
    expect(s.select.map((t) => t.id)).toEqual(['s0', 's1']);
    // s2 uses the held-out pattern too: it goes to neither side, so training never sees it.
    expect(s.train.map((t) => t.id)).toEqual(['s3', 's4', 's5', 's6']);
    expect(unseenPatterns(s.select, s.train).unseen).toBe(2);
  });
  it('never holds out a pattern every task uses, and says what to do when that is all there is', () => {
    const one = Array.from({ length: 5 }, (_, i) => task(`o${i}`, 'only'));
    expect(() => groupedSelection(one, 16, 42)).toThrow(InvalidInputError);
    expect(() => groupedSelection(one, 16, 42)).toThrow(
      /at least two task patterns.*`selectFrom` split/,
    );
    // Two patterns, a size that would take both: one stays for training.
    const two = [task('x0', 'x'), task('x1', 'x'), task('y0', 'y')];
    const s = groupedSelection(two, 16, 42);
    expect(s.select.length).toBeGreaterThan(0);
    expect(s.train.length).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from 'vitest';
import {
  coCanStillWin,
  referenceSet,
  selectCompression,
  selectReference,
  selectUtility,
  utCanStillWin,
} from './selection.js';

const score = (
  id: string,
  accuracy: number,
  peakTokens: number,
  totalTokens = 10_000,
  inputTokens = totalTokens,
) => ({
  id,
  accuracy,
  peakTokens,
  totalTokens,
  inputTokens,
  tasks: 34,
});

describe('utCanStillWin', () => {
  it('keeps a candidate that can still tie the best on accuracy', () => {
    expect(utCanStillWin({ successes: 20, done: 25, peakSum: 0 }, 34, 29)).toBe(true);
  });
  it('drops a candidate that cannot reach the best even if every remaining task succeeds', () => {
    expect(utCanStillWin({ successes: 20, done: 26, peakSum: 0 }, 34, 29)).toBe(false);
  });
});

describe('coCanStillWin', () => {
  const n = 34;
  it('keeps a candidate below the best accuracy but within the threshold, with fewer tokens', () => {
    // The case that used to be wrong: the best finished candidate has 34/34, this one 31/33 so
    // far; with the threshold at 31 successes it can still be selected (it is cheaper), but the
    // utility rule (needs 34) dropped it.
    const p = { successes: 31, done: 33, peakSum: 33 * 3000 };
    expect(utCanStillWin(p, n, 34)).toBe(false);
    expect(coCanStillWin(p, n, { minSuccesses: 31, maxMeanPeak: 3500 })).toBe(true);
  });
  it('drops a candidate that can no longer reach the accuracy threshold', () => {
    const p = { successes: 28, done: 32, peakSum: 32 * 3000 };
    expect(coCanStillWin(p, n, { minSuccesses: 31, maxMeanPeak: 3500 })).toBe(false);
  });
  it('drops a candidate whose peak tokens so far already exceed the best mean', () => {
    // 20 tasks at 6,000 tokens: even 14 tasks at 0 tokens leave the mean at 3,529 > 3,500.
    const p = { successes: 20, done: 20, peakSum: 20 * 6000 };
    expect(coCanStillWin(p, n, { minSuccesses: 31, maxMeanPeak: 3500 })).toBe(false);
    expect(coCanStillWin(p, n, { minSuccesses: 31, maxMeanPeak: 3600 })).toBe(true);
  });
});

describe('selectCompression', () => {
  it('breaks ties on peak tokens by total tokens (agent plus compressors)', () => {
    const parent = score('p', 1, 4000, 30_000);
    const sel = selectCompression(
      parent,
      [score('a', 1, 3500, 25_000), score('b', 1, 3500, 21_000), score('c', 1, 3600, 15_000)],
      0,
    );
    expect(sel.winner?.id).toBe('b');
    expect(sel.reasons.a).toMatch(/^kept accuracy but cut fewer tokens/);
  });
  it('accepts a candidate within the tolerance that has fewer tokens than a more accurate one', () => {
    const parent = score('p', 1, 4000);
    const sel = selectCompression(parent, [score('a', 1, 3800), score('b', 0.97, 3000)], 0.05);
    expect(sel.winner?.id).toBe('b');
  });
  it('counts equal peak but fewer total tokens than the parent as a cut', () => {
    const sel = selectCompression(score('p', 1, 4000, 30_000), [score('a', 1, 4000, 20_000)], 0);
    expect(sel.winner?.id).toBe('a');
  });
  it('rejects a candidate beyond the tolerance', () => {
    const sel = selectCompression(score('p', 1, 4000), [score('a', 0.9, 3000)], 0.05);
    expect(sel.winner).toBeNull();
    expect(sel.reasons.a).toMatch(/^accuracy fell beyond tolerance/);
  });
});

describe('selectUtility', () => {
  it('picks the most accurate candidate that beats the parent', () => {
    const sel = selectUtility(score('p', 0.7, 4000), [score('a', 0.9, 3900), score('b', 1, 4100)]);
    expect(sel.winner?.id).toBe('b');
  });

  it('accepts a candidate that matches the parent, although it costs more tokens (non-inferiority)', () => {
    const sel = selectUtility(score('p', 0.8, 4000), [
      score('a', 0.8, 4300),
      score('b', 0.8, 4200),
    ]);
    expect(sel.winner?.id).toBe('b');
    expect(sel.reasons.b).toMatch(/^selected: accuracy 80.0%, peak 4200 tokens vs parent/);
  });

  it('keeps the parent when every candidate is less accurate, and says why', () => {
    const sel = selectUtility(score('p', 0.8, 4000), [score('a', 0.75, 3000)]);
    expect(sel.winner).toBeNull();
    expect(sel.reasons.a).toMatch(/^best candidate but below the parent \(accuracy 80.0%/);
  });
});

describe('reference selection (paper v3 and its code)', () => {
  const rows = [
    { task_id: 'a', success: false },
    { task_id: 'b', success: true },
    { task_id: 'c', success: false },
    { task_id: 'd', success: true },
  ];

  it('builds D_cont from the contrastive pairs and D_succ from the compressed successes', () => {
    expect(referenceSet('ut', rows, ['c'])).toEqual(['c']);
    expect(referenceSet('co', rows, ['c'])).toEqual(['b', 'd']);
  });

  it('falls back to every compressed failure for D_cont when there is no pair', () => {
    expect(referenceSet('ut', rows, [])).toEqual(['a', 'c']);
  });

  // Candidates on D_cont (5 tasks; the parent failed all of them by construction).
  const table = [
    score('c1', 0.6, 900, 50_000, 41_000),
    score('c2', 0.8, 2000, 60_000, 52_000),
    score('c3', 0.8, 1000, 58_000, 47_000), // ties c2 on accuracy, fewer input tokens: wins
    score('c4', 0.4, 500, 30_000, 20_000),
  ];

  it('UT: best accuracy wins, ties to the fewest total input tokens (not peak)', () => {
    const sel = selectReference('ut', score('parent', 0, 800, 40_000, 35_000), table);
    expect(sel.winner?.id).toBe('c3');
    expect(sel.reasons.c2).toMatch(/^not the best/);
    expect(sel.reasons.c3).toMatch(/^selected: accuracy 80.0%, input 47000 tokens/);
  });

  it('UT: nothing is accepted when no candidate beats the parent on its set', () => {
    const sel = selectReference('ut', score('parent', 0, 800), [score('c1', 0, 100, 10, 5)]);
    expect(sel.winner).toBeNull();
  });

  it('CO: a candidate that keeps the parent accuracy on D_succ with fewer input tokens wins', () => {
    const parent = score('parent', 1, 3000, 90_000, 80_000);
    const sel = selectReference('co', parent, [
      score('k1', 1, 2500, 85_000, 79_000),
      score('k2', 1, 2900, 70_000, 61_000),
      score('k3', 0.75, 1000, 20_000, 15_000),
    ]);
    expect(sel.winner?.id).toBe('k2');
    const worse = selectReference('co', parent, [score('k4', 1, 2000, 95_000, 81_000)]);
    expect(worse.winner).toBeNull();
  });
});

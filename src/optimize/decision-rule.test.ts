import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DECISION,
  clopperPearsonUpper,
  decideCompression,
  decideUtility,
  dropUpperBound,
  signTestPValue,
} from './decision-rule.js';
import { pairs } from './paired-outcomes.fixtures.js';

describe('signTestPValue', () => {
  it('is the binomial tail written out', () => {
    // 5 wins, 1 loss: P(X ≥ 5 | 6, 1/2) = (C(6,5) + C(6,6)) / 2^6 = 7/64.
    expect(signTestPValue(5, 1)).toBeCloseTo(7 / 64, 12);
    // 4 wins, 0 losses: 1/16; 1 win: 1/2.
    expect(signTestPValue(4, 0)).toBeCloseTo(1 / 16, 12);
    expect(signTestPValue(1, 0)).toBeCloseTo(1 / 2, 12);
    // 7 of 9: (36 + 9 + 1) / 512.
    expect(signTestPValue(7, 2)).toBeCloseTo(46 / 512, 12);
  });
});

describe('decideUtility', () => {
  it('does not accept a tie at equal tokens', () => {
    const d = decideUtility(pairs(16, 2, 2), DEFAULT_DECISION);
    expect(d.accepted).toBe(false);
    expect(d.reason).toMatch(/^rejected: tie/);
  });
  it('accepts a tie only with the stated token cut', () => {
    expect(decideUtility(pairs(16, 0, 0, [1000, 950]), DEFAULT_DECISION).accepted).toBe(false);
    expect(decideUtility(pairs(16, 0, 0, [1000, 880]), DEFAULT_DECISION).accepted).toBe(true);
  });
  it('does not accept a one-task win at alpha 0.1', () => {
    const d = decideUtility(pairs(16, 1, 0), DEFAULT_DECISION);
    expect(d.pValue).toBeCloseTo(0.5, 12);
    expect(d.accepted).toBe(false);
  });
  it('does not accept 5 wins against 1 loss (p = 7/64 > 0.1), accepts 4 against 0 (1/16)', () => {
    expect(decideUtility(pairs(16, 5, 1), DEFAULT_DECISION).accepted).toBe(false);
    expect(decideUtility(pairs(16, 4, 0), DEFAULT_DECISION).accepted).toBe(true);
  });
  it('rejects fewer solved tasks', () => {
    expect(decideUtility(pairs(16, 0, 5), DEFAULT_DECISION).accepted).toBe(false);
  });
});

describe('dropUpperBound', () => {
  it('inverts the binomial cdf (Clopper–Pearson)', () => {
    // 0 losses of 1: P(X ≤ 0 | 1, π) = 1 − π = 0.1 → π = 0.9.
    expect(clopperPearsonUpper(0, 1, 0.1)).toBeCloseTo(0.9, 9);
    // 0 of 5: (1 − π)^5 = 0.1.
    expect(clopperPearsonUpper(0, 5, 0.1)).toBeCloseTo(1 - 0.1 ** (1 / 5), 9);
    // 1 of 4: (1−π)^4 + 4π(1−π)^3 = 0.1 at the bound.
    const u = clopperPearsonUpper(1, 4, 0.1);
    expect((1 - u) ** 4 + 4 * u * (1 - u) ** 3).toBeCloseTo(0.1, 9);
  });
  it('is d(2π − 1)/n', () => {
    const pi = 1 - 0.1 ** (1 / 5);
    expect(dropUpperBound({ n: 16, wins: 5, losses: 0 }, 0.1)).toBeCloseTo(
      (5 * (2 * pi - 1)) / 16,
      9,
    );
    expect(dropUpperBound({ n: 16, wins: 0, losses: 0 }, 0.1)).toBe(0);
  });
});

describe('decideCompression', () => {
  it('accepts no drop with fewer tokens (within the margin)', () => {
    expect(decideCompression(pairs(16, 0, 0, [1000, 800]), DEFAULT_DECISION).accepted).toBe(true);
    // 5 won, 0 lost: the bound is negative.
    expect(decideCompression(pairs(16, 5, 0, [1000, 800]), DEFAULT_DECISION).accepted).toBe(true);
  });
  it('rejects a one-task loss: the drop bound 6.25 points is outside 2.5', () => {
    const d = decideCompression(pairs(16, 0, 1, [1000, 800]), DEFAULT_DECISION);
    expect(d.dropUpper).toBeCloseTo(1 / 16, 9);
    expect(d.accepted).toBe(false);
    expect(d.reason).toMatch(/^rejected: drop beyond margin/);
  });
  it('accepts a one-task loss within a margin of 7 points', () => {
    const d = decideCompression(pairs(16, 0, 1, [1000, 800]), {
      ...DEFAULT_DECISION,
      margin: 0.07,
    });
    expect(d.accepted).toBe(true);
  });
  it('rejects no drop without a token cut', () => {
    const d = decideCompression(pairs(16, 0, 0, [1000, 1000]), DEFAULT_DECISION);
    expect(d.reason).toMatch(/^rejected: no token cut/);
  });
});

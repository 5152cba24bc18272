import { describe, expect, it } from 'vitest';
import { DEFAULT_DECISION } from './decision-rule.js';
import { pairs } from './paired-outcomes.fixtures.js';
import { choosePaired, pairOutcomes } from './paired-selection.js';

/** C(n, k), written out for the checks below (not the module's log-space sum). */
function choose(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}
/** P(X ≥ w) for X ~ Binomial(w + l, 1/2). */
function tail(w: number, l: number): number {
  let s = 0;
  for (let i = w; i <= w + l; i++) s += choose(w + l, i);
  return s / 2 ** (w + l);
}

describe('choosePaired, utility phase', () => {
  it('does not accept a tie in solved tasks at equal tokens', () => {
    const s = choosePaired('ut', [{ id: 'c1', pairs: pairs(16, 3, 3) }], DEFAULT_DECISION);
    expect(s.winner).toBeNull();
    expect(s.decisions.c1!.pValue).toBeCloseTo(tail(3, 3), 12);
    expect(s.reasons.c1).toMatch(/^tie/);
  });
  it('does not accept a one-task win at alpha 0.1 (p = 1/2)', () => {
    const s = choosePaired('ut', [{ id: 'c1', pairs: pairs(16, 1, 0) }], DEFAULT_DECISION);
    expect(tail(1, 0)).toBe(0.5);
    expect(s.decisions.c1!.pValue).toBeCloseTo(tail(1, 0), 12);
    expect(s.winner).toBeNull();
  });
  it('accepts a clear win and prefers the larger net gain among accepted candidates', () => {
    // 6 won, 1 lost: p = 8/128 = 0.0625; 5 won, 0 lost: p = 1/32. Net 5 each: the smaller p wins.
    // 7 won, 1 lost: p = 9/256, net 6: it wins outright.
    expect(tail(6, 1)).toBeCloseTo(8 / 128, 12);
    const three = [
      { id: 'c1', pairs: pairs(16, 6, 1) },
      { id: 'c2', pairs: pairs(16, 5, 0) },
      { id: 'c3', pairs: pairs(16, 7, 1) },
    ];
    const s = choosePaired('ut', three, DEFAULT_DECISION);
    expect(s.decisions.c3!.pValue).toBeCloseTo(tail(7, 1), 12);
    expect(s.winner).toBe('c3');
    expect(s.reasons.c3).toMatch(/^selected: accepted/);
    expect(s.reasons.c1).toMatch(/^passed the rule but c3 did better/);
    expect(choosePaired('ut', three.slice(0, 2), DEFAULT_DECISION).winner).toBe('c2');
  });
  it('judges each candidate on the tasks it shares with the parent', () => {
    const parent = new Map([
      ['a', { success: true, tokens: 100 }],
      ['b', { success: false, tokens: 200 }],
      ['c', { success: true, tokens: 300 }],
    ]);
    const cand = new Map([
      ['b', { success: true, tokens: 50 }],
      ['c', { success: false, tokens: 60 }],
      ['z', { success: true, tokens: 1 }],
    ]);
    expect(pairOutcomes(parent, cand)).toEqual([
      {
        taskId: 'b',
        parentSuccess: false,
        candidateSuccess: true,
        parentTokens: 200,
        candidateTokens: 50,
      },
      {
        taskId: 'c',
        parentSuccess: true,
        candidateSuccess: false,
        parentTokens: 300,
        candidateTokens: 60,
      },
    ]);
  });
});

describe('choosePaired, compression phase', () => {
  it('accepts no accuracy change with fewer tokens, the cheapest first', () => {
    const s = choosePaired(
      'co',
      [
        { id: 'c1', pairs: pairs(16, 0, 0, [1000, 900]) },
        { id: 'c2', pairs: pairs(16, 0, 0, [1000, 700]) },
      ],
      DEFAULT_DECISION,
    );
    expect(s.decisions.c2!.dropUpper).toBe(0);
    expect(s.winner).toBe('c2');
  });
  it('rejects a drop whose upper bound is outside the margin, accepts it inside a wider one', () => {
    // 1 won, 2 lost of 16: the losses among d = 3 discordant tasks are Binomial(3, π); the
    // 90% Clopper–Pearson upper bound solves P(X ≤ 2 | 3, π) = 1 − π³ = 0.1, so π = 0.9^(1/3),
    // and the drop bound is d(2π − 1)/n.
    const pi = 0.9 ** (1 / 3);
    const bound = (3 * (2 * pi - 1)) / 16;
    const cands = [{ id: 'c1', pairs: pairs(16, 1, 2, [1000, 600]) }];
    const s = choosePaired('co', cands, DEFAULT_DECISION);
    expect(s.decisions.c1!.dropUpper).toBeCloseTo(bound, 9);
    expect(bound).toBeGreaterThan(0.025);
    expect(s.winner).toBeNull();
    expect(s.reasons.c1).toMatch(/^drop beyond margin/);
    const wide = choosePaired('co', cands, { ...DEFAULT_DECISION, margin: bound + 0.001 });
    expect(wide.winner).toBe('c1');
  });
  it('rejects a candidate within the margin that cuts no tokens', () => {
    const s = choosePaired('co', [{ id: 'c1', pairs: pairs(16, 0, 0) }], DEFAULT_DECISION);
    expect(s.winner).toBeNull();
    expect(s.reasons.c1).toMatch(/^no token cut/);
  });
});

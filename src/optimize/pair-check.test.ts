import { describe, expect, it } from 'vitest';
import { DEFAULT_DECISION } from './decision-rule.js';
import { choosePair } from './pair-check.js';

/** Outcomes on tasks t0…t(n-1): `solved` lists the solved task indexes. */
function outcomes(n: number, solved: number[], tokens: number) {
  return new Map(
    Array.from({ length: n }, (_, i) => [`t${i}`, { success: solved.includes(i), tokens }]),
  );
}
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

describe('choosePair', () => {
  const v0 = outcomes(16, range(0, 12), 10_000);

  it('never chooses an option below the v0 pair on selection, however few tokens it keeps', () => {
    // One task fewer than v0 at a third of the tokens: below v0, so v0 stays.
    const j = choosePair(
      v0,
      [{ name: 'learned pair', outcomes: outcomes(16, range(1, 12), 3000) }],
      DEFAULT_DECISION,
    );
    expect(j.chosen).toBe('v0');
    expect(j.verdict).toBe('no guideline beat v0 on selection; v0 stays active');
    expect(j.lines[0]!.reason).toMatch(/^below the v0 pair on selection \(0 won \/ 1 lost of 16\)/);
  });

  it('chooses the learned pair at equal accuracy with fewer tokens (non-inferior)', () => {
    const j = choosePair(
      v0,
      [
        { name: 'learned pair', outcomes: outcomes(16, range(0, 12), 6000) },
        { name: 'obs learned, hist v0', outcomes: outcomes(16, range(0, 12), 8000) },
      ],
      DEFAULT_DECISION,
    );
    expect(j.chosen).toBe('learned pair');
    expect(j.verdict).toMatch(/^learned pair chosen: as good as the v0 pair with fewer tokens/);
  });

  it('falls back to the better single when the pair loses tasks the single keeps', () => {
    const j = choosePair(
      v0,
      [
        { name: 'learned pair', outcomes: outcomes(16, range(0, 10), 5000) },
        { name: 'obs learned, hist v0', outcomes: outcomes(16, range(0, 12), 8000) },
        { name: 'obs v0, hist learned', outcomes: outcomes(16, range(0, 11), 7000) },
      ],
      DEFAULT_DECISION,
    );
    expect(j.chosen).toBe('obs learned, hist v0');
    expect(j.lines.map((l) => l.eligible)).toEqual([false, true, false]);
  });

  it('prefers a significant gain over a cheaper tie', () => {
    // 4 won, 0 lost: sign test p = 1/16 ≤ 0.1.
    const j = choosePair(
      v0,
      [
        { name: 'learned pair', outcomes: outcomes(16, range(0, 12), 5000) },
        { name: 'obs learned, hist v0', outcomes: outcomes(16, range(0, 16), 9000) },
      ],
      DEFAULT_DECISION,
    );
    expect(j.chosen).toBe('obs learned, hist v0');
    expect(j.verdict).toMatch(
      /better than the v0 pair: 4 won \/ 0 lost of 16 paired tasks, sign test p = 0\.063/,
    );
  });

  it('keeps v0 when an option at equal accuracy cuts no tokens', () => {
    const j = choosePair(
      v0,
      [{ name: 'learned pair', outcomes: outcomes(16, range(0, 12), 10_000) }],
      DEFAULT_DECISION,
    );
    expect(j.chosen).toBe('v0');
    expect(j.lines[0]!.reason).toMatch(/^not shown better than the v0 pair: no token cut/);
  });
});

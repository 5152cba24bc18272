import { describe, expect, it } from 'vitest';
import { paretoFlags } from './pareto.js';

describe('paretoFlags', () => {
  it('keeps the points no other point beats on both accuracy and peak tokens', () => {
    const flags = paretoFlags([
      { accuracy: 0.86, meanPeakTokens: 18_000 }, // raw: most accurate
      { accuracy: 0.86, meanPeakTokens: 9_000 }, // as accurate, smaller: dominates raw
      { accuracy: 0.7, meanPeakTokens: 6_000 }, // smallest
      { accuracy: 0.7, meanPeakTokens: 8_000 }, // dominated by the one above
      { accuracy: 0.5, meanPeakTokens: 12_000 }, // dominated
    ]);
    expect(flags).toEqual([false, true, true, false, false]);
  });

  it('keeps both of two identical points and ignores conditions without tasks', () => {
    expect(
      paretoFlags([
        { accuracy: 0.5, meanPeakTokens: 100 },
        { accuracy: 0.5, meanPeakTokens: 100 },
        { accuracy: 0, meanPeakTokens: 0, tasks: 0 },
      ]),
    ).toEqual([true, true, false]);
  });
});

import { describe, expect, it } from 'vitest';
import { verdictLine, type VerdictRow } from './verdict.js';

const row = (
  name: string,
  accuracy: number,
  ci: [number, number],
  peak: number,
  condition = name,
): VerdictRow => ({ name, condition, accuracy, accuracyCi: ci, meanPeakTokens: peak, tasks: 40 });

describe('verdictLine (issue #24)', () => {
  it('compares the final guidelines with raw and the best baseline, and names the Pareto set', () => {
    const rows = [
      row('raw', 0.86, [0.75, 0.95], 18_000),
      row('masking', 0.86, [0.75, 0.95], 9_360),
      row('naive', 0.7, [0.55, 0.82], 9_000),
      row('acon[obs-0004,hist-0007]', 0.847, [0.73, 0.94], 10_620, 'acon'),
    ];
    expect(verdictLine('test', rows, 'acon')).toBe(
      'test: acon[obs-0004,hist-0007] −41% peak at −1.3 pts vs raw (CI overlaps); best baseline masking −48% at +0.0 pts; Pareto: masking, naive',
    );
  });

  it('says when the CIs are apart, and names optimize versions by version', () => {
    const rows = [
      row('raw', 0.9, [0.85, 0.95], 20_000),
      row('v0', 0.4, [0.3, 0.5], 8_000, 'acon[obs-0000,hist-0000]'),
      row('UT=UTCO', 0.6, [0.5, 0.7], 9_000, 'acon[obs-0003,hist-0002]'),
    ];
    expect(verdictLine('dev', rows, 'UT=UTCO')).toBe(
      'dev: UT=UTCO −55% peak at −30.0 pts vs raw (CIs apart); best baseline v0 −60% at −50.0 pts; Pareto: raw, v0, UT=UTCO',
    );
  });

  it("never names one of the method's own stages as the baseline", () => {
    const rows = [
      row('raw', 0.9, [0.8, 0.97], 17_000),
      row('masking', 0.85, [0.75, 0.95], 9_000),
      row('v0 both', 0.8, [0.7, 0.9], 4_100, 'acon[obs-0000,hist-0000]'),
      { ...row('UT both', 0.925, [0.82, 1], 4_100, 'acon[obs-0005,hist-0001]'), baseline: false },
      row(
        'UTCO both acon[obs-0006,hist-0006]',
        0.875,
        [0.75, 0.97],
        4_120,
        'acon[obs-0006,hist-0006]',
      ),
    ];
    expect(verdictLine('test', rows, 'acon[obs-0006,hist-0006]')).toBe(
      'test: UTCO both acon[obs-0006,hist-0006] −76% peak at −2.5 pts vs raw (CI overlaps); best baseline masking −47% at −5.0 pts; Pareto: UT both',
    );
  });

  it('names only the Pareto set without a raw condition', () => {
    expect(verdictLine('dev', [row('masking', 0.5, [0.3, 0.7], 100)])).toBe('dev: Pareto: masking');
  });

  it('says whose peak failed compressions inflate and how many raw rollouts fell back (issue #54)', () => {
    const rows = [
      { ...row('raw', 0.8, [0.6, 0.9], 20_000), contextFallbacks: 3 },
      { ...row('acon', 0.7, [0.5, 0.85], 9_000), failedCompressions: 4, compressionEvents: 40 },
    ];
    expect(verdictLine('dev', rows, 'acon')).toBe(
      'dev: acon −55% peak at −10.0 pts vs raw (CI overlaps); Pareto: raw, acon; acon peak inflated by 4/40 failed compressions; raw fell back to FIFO at the context limit in 3/40 rollouts',
    );
    const clean = rows.map((r) => ({ ...r, contextFallbacks: 0, failedCompressions: 0 }));
    expect(verdictLine('dev', clean, 'acon')).not.toMatch(/failed|fell back/);
  });
});

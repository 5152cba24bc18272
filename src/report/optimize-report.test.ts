import { describe, expect, it } from 'vitest';
import type { ConditionMetrics } from '../domain/condition-metrics.js';
import { versionVerdictRows } from '../metrics/verdict.js';
import { reviewLine } from './optimize-report.js';

const row = (version: string, condition: string) =>
  ({ version, condition, tasks: 40 }) as ConditionMetrics & { version: string };

describe('versionVerdictRows', () => {
  it('counts the strategies and v0 as baselines, never UT or UTCO', () => {
    const rows = versionVerdictRows(
      [
        row('raw', 'raw'),
        row('masking', 'masking'),
        row('v0 both', 'acon[obs-0000,hist-0000]'),
        row('v0 hist=UT hist', 'acon[-,hist-0000]'),
        row('UT both', 'acon[obs-0005,hist-0001]'),
        row('UT obs=UTCO obs', 'acon[obs-0005,-]'),
        row('UTCO both', 'acon[obs-0006,hist-0006]'),
      ],
      'acon[obs-0006,hist-0006]',
    );
    expect(rows.map((r) => [r.name, r.baseline])).toEqual([
      ['raw', true],
      ['masking', true],
      ['v0 both', true],
      ['v0 hist=UT hist', true],
      ['UT both', false],
      ['UT obs=UTCO obs', false],
      ['UTCO both acon[obs-0006,hist-0006]', false],
    ]);
  });
});

describe('reviewLine', () => {
  const v = (id: string) => ({ id, text: id });
  it('diffs each compressor that changed, and never a version with itself', () => {
    expect(
      reviewLine({
        start: { obs: v('obs-0000'), hist: v('hist-0000') },
        final: { obs: v('obs-0006'), hist: v('hist-0000') },
      }),
    ).toBe('review them: acon guidelines log · acon guidelines diff obs-0000 obs-0006');
    expect(
      reviewLine({
        start: { obs: v('obs-0006'), hist: v('hist-0004') },
        final: { obs: v('obs-0006'), hist: v('hist-0004') },
      }),
    ).not.toMatch(/diff obs-0006 obs-0006/);
  });
});

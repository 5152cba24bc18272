import { describe, expect, it } from 'vitest';
import { finalRows, startName } from './final-rows.js';

const g = (obs: string, hist: string) => ({
  obs: { id: obs, text: obs },
  hist: { id: hist, text: hist },
});
const start = g('obs-0000', 'hist-0000');
const ut = g('obs-0003', 'hist-0008');

describe('finalRows', () => {
  it('has the baselines, then v0, UT and UTCO for obs alone, hist alone and both together', () => {
    const rows = finalRows(
      { target: 'both', phases: ['ut', 'co'] },
      start,
      ut,
      g('obs-0006', 'hist-0008'),
    );
    expect(rows.map((r) => [r.version, r.condition.label, r.note ?? ''])).toEqual([
      ['raw', 'raw', ''],
      ['fifo', 'fifo', ''],
      ['masking', 'masking', ''],
      ['summary', 'summary', ''],
      ['retrieval', 'retrieval', ''],
      ['v0 obs', 'acon[obs-0000,-]', ''],
      ['UT obs', 'acon[obs-0003,-]', ''],
      ['UTCO obs', 'acon[obs-0006,-]', ''],
      ['v0 hist', 'acon[-,hist-0000]', ''],
      ['UT hist=UTCO hist', 'acon[-,hist-0008]', 'CO accepted nothing'],
      ['v0 both', 'acon[obs-0000,hist-0000]', ''],
      ['UT both', 'acon[obs-0003,hist-0008]', ''],
      ['UTCO both', 'acon[obs-0006,hist-0008]', ''],
    ]);
    // No condition is run twice.
    expect(new Set(rows.map((r) => r.condition.label)).size).toBe(rows.length);
  });

  it('deploys a single optimized compressor alone, and lists only the phases that ran', () => {
    const rows = finalRows({ target: 'obs', phases: ['ut'] }, start, start, start);
    expect(rows.slice(5).map((r) => [r.version, r.condition.label, r.note ?? ''])).toEqual([
      ['v0 obs=UT obs', 'acon[obs-0000,-]', 'UT accepted nothing'],
    ]);
  });
});

describe('the starting pair', () => {
  it('is v0 only when it is the seed versions; a second optimize starts from "start"', () => {
    expect(startName(start)).toBe('v0');
    expect(startName(g('obs-0006', 'hist-0000'))).toBe('start');
    const rows = finalRows({ target: 'obs', phases: ['ut'] }, g('obs-0006', 'hist-0004'), ut, ut);
    expect(rows.slice(5).map((r) => r.version)).toEqual(['start obs', 'UT obs']);
  });
});

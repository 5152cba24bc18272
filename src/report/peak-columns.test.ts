import { describe, expect, it } from 'vitest';
import { conditionMetrics, rolloutMetrics } from '../metrics/metrics.js';
import { conditionTable } from './table.js';

const provenance = {
  runId: 'run-1',
  bench: 'apptown',
  split: 'test',
  provider: 'sim',
  models: {},
  simulated: false,
};

const rollout = (peaks: number[]) =>
  rolloutMetrics({
    success: true,
    score: 1,
    stepPromptTokens: peaks,
    systemTokens: 500,
    events: [],
    calls: [],
    wallMs: 1,
  });

describe('peak and peak+sys columns', () => {
  const row = conditionMetrics('raw', [rollout([1500, 2500]), rollout([3500])], { seed: 1 });

  it('averages the peak without the system prompt and peak+sys with it', () => {
    expect(row.meanPeakTokens).toBe(2500);
    expect(row.meanPeakPromptTokens).toBe(3000);
  });

  it('shows peak+sys only with --wide and says which peak is which', () => {
    const narrow = conditionTable([row], provenance, { width: 200 });
    const wide = conditionTable([row], provenance, { wide: true });
    const header = (t: string) => t.split('\n')[1]!;
    expect(header(narrow)).not.toContain('peak+sys');
    expect(narrow).toContain('not shown: peak+sys');
    expect(header(wide)).toContain('peak+sys');
    expect(wide).toContain('3,000');
    expect(narrow).toContain('system prompt and tools excluded');
    expect(wide).toContain('peak+sys = mean largest prompt actually sent');
  });
});

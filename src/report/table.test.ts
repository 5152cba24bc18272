import { describe, expect, it } from 'vitest';
import { modelLabel, modelsText, provenanceLine, reductionPct } from './table.js';

describe('modelLabel', () => {
  it('says a sim model only prices the calls, so no one reads it as the real model', () => {
    expect(modelLabel('sim/gpt-4.1')).toBe('sim (priced as gpt-4.1)');
    expect(modelLabel('openai/gpt-4.1')).toBe('openai/gpt-4.1');
    expect(modelsText({ agent: 'sim/gpt-4.1', obs_compressor: 'sim/gpt-4.1' })).toBe(
      'sim (priced as gpt-4.1)',
    );
  });

  it('labels the provenance line of every result table', () => {
    const line = provenanceLine({
      runId: 'run-1',
      bench: 'apptown',
      split: 'dev',
      provider: 'sim',
      models: { agent: 'sim/gpt-4.1', obs_compressor: 'sim/gpt-4.1-mini' },
      simulated: true,
    });
    expect(line).toBe(
      'SIMULATED — apptown/dev · provider sim · agent sim (priced as gpt-4.1) · compressor sim (priced as gpt-4.1-mini)',
    );
  });
});

describe('reductionPct', () => {
  it('signs a change and prints no change (raw against itself) without a sign', () => {
    expect(reductionPct(0.181)).toBe('−18.1%');
    expect(reductionPct(-0.05)).toBe('+5.0%');
    expect(reductionPct(0)).toBe('0.0%');
    expect(reductionPct(-0.0001)).toBe('0.0%');
    expect(reductionPct(null)).toBeUndefined();
  });
});

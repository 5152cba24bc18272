import { describe, expect, it } from 'vitest';
import { conditionMetrics } from '../metrics/metrics.js';
import { rolloutMetrics } from '../metrics/metrics.js';
import { conditionTable, modelLabel, modelsText, provenanceLine, reductionPct } from './table.js';

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

describe('conditionTable failures (issue #54)', () => {
  const rollout = (kinds: { kind: 'obs' | 'reactive'; failed: boolean }[]) =>
    rolloutMetrics({
      success: true,
      score: 1,
      stepPromptTokens: [100, 200],
      events: kinds.map((k) => ({ ...k, inputTokens: 50, outputTokens: 10 })),
      calls: [],
      wallMs: 1,
    });
  const p = {
    runId: 'r',
    bench: 'apptown',
    split: 'dev',
    provider: 'openai',
    models: {},
    simulated: false,
  };

  it('shows compressor failures and context-limit fallbacks only where they happened', () => {
    const raw = [rollout([{ kind: 'reactive', failed: false }]), rollout([])];
    const acon = [
      rollout([
        { kind: 'obs', failed: true },
        { kind: 'obs', failed: false },
      ]),
      rollout([{ kind: 'obs', failed: false }]),
    ];
    const rows = [
      conditionMetrics('raw', raw, { seed: 1, raw }),
      conditionMetrics('acon', acon, { seed: 1, raw }),
    ];
    const table = conditionTable(rows, p, { wide: true });
    const [header, , rawLine, aconLine] = table.split('\n').slice(1);
    expect(header).toMatch(/comp fail +ctx limit$/);
    // raw: no failure (empty cell), 1 of 2 rollouts fell back; acon: 1 of 3 compressions failed.
    expect(rawLine).toMatch(/—  +1\/2$/);
    expect(aconLine).toMatch(/1\/3  +—$/);
    expect(table).toContain('failed compressions / compressions');
    const clean = conditionTable([conditionMetrics('acon', [rollout([])], { seed: 1 })], p, {
      wide: true,
    });
    expect(clean).not.toMatch(/comp fail|ctx limit/);
  });
});

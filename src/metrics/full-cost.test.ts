import { describe, expect, it } from 'vitest';
import { estimatedCachedTokens, fullCallCost } from './full-cost.js';
import { conditionMetrics, rolloutMetrics } from './metrics.js';

const PRICES = { m: { input: 2, cached_input: 0.5, output: 8 } };

describe('estimatedCachedTokens', () => {
  it.each([
    [0, 5000, 0],
    [1000, 5000, 0], // below the 1,024-token minimum
    [3000, 800, 0], // the prompt itself is too short
    [3000, 5000, 2944], // 128-token increments
    [6000, 5000, 4992],
  ])('shared %i of a %i-token prompt → %i cached', (shared, prompt, cached) => {
    expect(estimatedCachedTokens(shared, prompt)).toBe(cached);
  });
});

describe('fullCallCost', () => {
  it('prices the shared prefix at the cached-input price', () => {
    const c = fullCallCost(
      {
        model: 'm',
        promptTokens: 5000,
        cachedTokens: 0,
        completionTokens: 100,
        sharedPrefixTokens: 3000,
      },
      PRICES,
    );
    expect(c).toBeCloseTo((2944 * 0.5 + 2056 * 2 + 100 * 8) / 1e6, 12);
  });
  it('has no full cost for a model without a price', () => {
    expect(
      fullCallCost(
        {
          model: 'x',
          promptTokens: 1,
          cachedTokens: 0,
          completionTokens: 1,
          sharedPrefixTokens: 0,
        },
        PRICES,
      ),
    ).toBeNull();
  });
});

describe('rolloutMetrics: billed vs full cost, dependency', () => {
  const call = (id: number, role: string, costUsd: number, promptTokens = 2000) => ({
    id,
    role,
    model: 'm',
    promptTokens,
    cachedTokens: 0,
    completionTokens: 50,
    reasoningTokens: 0,
    costUsd,
  });
  const base = { success: true, score: 1, stepPromptTokens: [2000, 2000], events: [], wallMs: 1 };

  it('prices call-cache hits in the full cost although they were billed $0', () => {
    // Call 2 was answered from the call cache: billed 0, full as if sent (prefix cached).
    const m = rolloutMetrics({
      ...base,
      calls: [call(1, 'agent', 0.0044), call(2, 'agent', 0), call(3, 'obs_compressor', 0, 1500)],
      prices: PRICES,
      sharedPrefixTokens: new Map([[2, 1800]]),
    });
    expect(m.costUsd).toBeCloseTo(0.0044, 12);
    const second = (1792 * 0.5 + 208 * 2 + 50 * 8) / 1e6;
    const third = (1500 * 2 + 50 * 8) / 1e6;
    expect(m.fullCostUsd).toBeCloseTo(0.0044 + second + third, 12);
  });

  it("sums (n_in + 2·n_out)·n_out / 2 over the agent's calls, system prompt excluded (paper Eq. 12)", () => {
    const m = rolloutMetrics({
      ...base,
      systemTokens: 400,
      calls: [call(1, 'agent', 0, 1000), call(2, 'agent', 0, 3000), call(3, 'hist_compressor', 0)],
    });
    expect(m.dependency).toBe(((600 + 100) * 50) / 2 + ((2600 + 100) * 50) / 2);
    expect(m.fullCostUsd).toBeNull();
  });

  it('gives the compressors a share of the full cost when every call was billed $0 (sim, cache)', () => {
    // Issue #24: naive's comp% was 0.0 under sim although its compressors cost most of full$.
    const sim = rolloutMetrics({
      ...base,
      calls: [call(1, 'agent', 0, 1000), call(2, 'obs_compressor', 0, 3000)],
      prices: PRICES,
    });
    expect(sim.byRole.obs_compressor!.fullCostUsd).toBeCloseTo((3000 * 2 + 50 * 8) / 1e6, 12);
    const share = conditionMetrics('naive', [sim], { seed: 1 }).compressorCostShare;
    expect(share).toBeCloseTo((3000 * 2 + 400) / (3000 * 2 + 400 + 1000 * 2 + 400), 12);
  });

  it('falls back to the billed share when a rollout has no full cost (no price, or stored before)', () => {
    const billed = rolloutMetrics({
      ...base,
      calls: [call(1, 'agent', 0.03), call(2, 'hist_compressor', 0.01)],
    });
    expect(billed.byRole.agent!.fullCostUsd).toBeNull();
    expect(conditionMetrics('acon', [billed], { seed: 1 }).compressorCostShare).toBeCloseTo(
      0.25,
      12,
    );
  });

  it('leaves the system prompt and tools out of the peak; peak+sys is the largest prompt sent', () => {
    const m = rolloutMetrics({
      ...base,
      stepPromptTokens: [900, 2500, 1800],
      systemTokens: 400,
      calls: [],
    });
    expect(m.peakInputTokens).toBe(2100);
    expect(m.peakPromptTokens).toBe(2500);
  });
});

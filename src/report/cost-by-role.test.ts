import { describe, expect, it } from 'vitest';
import type { RoleUsage } from '../domain/rollout-metrics.js';
import { costByRole } from './cost-by-role.js';

const usage = (
  calls: number,
  inputTokens: number,
  outputTokens: number,
  costUsd: number,
  cachedTokens = 0,
  reasoningTokens = 0,
) =>
  ({
    calls,
    inputTokens,
    cachedTokens,
    outputTokens,
    reasoningTokens,
    costUsd,
    fullCostUsd: null,
  }) satisfies RoleUsage;

describe('costByRole', () => {
  it("adds the finished rollouts' usage by role to the calls outside them, sorted by role", () => {
    const rollouts: { metrics: { byRole: Record<string, RoleUsage> } }[] = [
      {
        metrics: {
          byRole: {
            agent: usage(10, 1000, 50, 0.5, 600, 32),
            obs_compressor: usage(2, 300, 30, 0.1),
          },
        },
      },
      { metrics: { byRole: { agent: usage(4, 400, 20, 0.25) } } },
    ];
    // The analyzer runs outside rollouts only: its row is the calls outside them as they are.
    const analyzer = {
      role: 'analyzer',
      calls: 3,
      inputTokens: 2000,
      cachedTokens: 0,
      outputTokens: 100,
      reasoningTokens: 80,
      costUsd: 1,
    };
    const outside = [
      {
        role: 'agent',
        calls: 1,
        inputTokens: 90,
        cachedTokens: 64,
        outputTokens: 5,
        reasoningTokens: 4,
        costUsd: 0.05,
      },
      analyzer,
    ];
    expect(costByRole(rollouts, outside)).toEqual([
      {
        role: 'agent',
        calls: 15,
        inputTokens: 1490,
        cachedTokens: 664,
        outputTokens: 75,
        reasoningTokens: 36,
        costUsd: 0.8,
      },
      analyzer,
      {
        role: 'obs_compressor',
        calls: 2,
        inputTokens: 300,
        cachedTokens: 0,
        outputTokens: 30,
        reasoningTokens: 0,
        costUsd: 0.1,
      },
    ]);
  });

  it('is empty for a run without calls', () => {
    expect(costByRole([], [])).toEqual([]);
  });
});

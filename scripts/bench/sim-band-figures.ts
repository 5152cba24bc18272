/**
 * The figures issue 22's bands are read from, for one stored run: per condition, accuracy, mean
 * steps, and what its history compressions did (how often they fired, how large the summaries
 * were against what they folded). Shared by sim-bands.ts (one run) and sim-seeds.ts (a sweep).
 */
import type { RunStore } from '../../src/store/index.js';

export type ConditionFigures = {
  condition: string;
  rollouts: number;
  accuracy: number;
  meanSteps: number;
  /** History compressions per agent step (1/6 or less is the band). */
  foldsPerStep: number;
  /** Mean of each summary's output tokens over its input tokens (NaN when none fired). */
  summaryRatio: number;
  /** Rollouts that ended at the step cap (`agent.max_steps`): their steps measure the cap. */
  atCap: number;
};

export function conditionFigures(
  store: RunStore,
  runId: string,
  maxSteps: number,
): ConditionFigures[] {
  type Sums = {
    n: number;
    ok: number;
    steps: number;
    folds: number;
    ratios: number[];
    atCap: number;
  };
  const sums = new Map<string, Sums>();
  for (const r of store.rollouts(runId)) {
    const s = sums.get(r.condition) ?? { n: 0, ok: 0, steps: 0, folds: 0, ratios: [], atCap: 0 };
    sums.set(r.condition, s);
    s.n++;
    s.ok += r.success ? 1 : 0;
    s.steps += r.steps;
    if (r.steps >= maxSteps) s.atCap++;
    for (const e of store.events(r.id)) {
      if (e.kind !== 'hist' && e.kind !== 'summary') continue;
      s.folds++;
      if (e.inputTokens > 0) s.ratios.push(e.outputTokens / e.inputTokens);
    }
  }
  return [...sums].map(([condition, s]) => ({
    condition,
    rollouts: s.n,
    accuracy: s.ok / s.n,
    meanSteps: s.steps / s.n,
    foldsPerStep: s.steps === 0 ? 0 : s.folds / s.steps,
    summaryRatio:
      s.ratios.length === 0 ? NaN : s.ratios.reduce((a, b) => a + b, 0) / s.ratios.length,
    atCap: s.atCap,
  }));
}

import type { PairKind, PairRule, PairSide } from '../bench/index.js';
import type { RolloutRow } from '../domain/index.js';

/**
 * A contrastive pair of the utility phase (seed 003): the same task with full context and with
 * compression. `failure`: full succeeded, compressed failed. `elongation`: both succeeded but
 * compression made the agent take at least `stepsRatio` times the steps. A benchmark may bring
 * its own rule (`Benchmark.pairRule`).
 */
export type ContrastivePair = {
  taskId: string;
  kind: PairKind;
  full: RolloutRow;
  compressed: RolloutRow;
};

/** The built-in rule: full succeeded and compressed failed, or compressed took ≥ ratio× steps. */
export function defaultPairKind(
  full: PairSide,
  compressed: PairSide,
  stepsRatio: number | null,
): PairKind | null {
  if (!full.success) return null;
  if (!compressed.success) return 'failure';
  if (stepsRatio !== null && compressed.steps >= stepsRatio * full.steps) return 'elongation';
  return null;
}

export function contrastivePairs(
  full: RolloutRow[],
  compressed: RolloutRow[],
  opts: { stepsRatio: number | null; rule?: PairRule },
): ContrastivePair[] {
  const fullByTask = new Map(full.map((r) => [r.task_id, r]));
  const defaultPair = (f: PairSide, c: PairSide) => defaultPairKind(f, c, opts.stepsRatio);
  const pairs: ContrastivePair[] = [];
  for (const c of [...compressed].sort((a, b) => a.task_id.localeCompare(b.task_id))) {
    const f = fullByTask.get(c.task_id);
    if (!f) continue;
    const kind = opts.rule
      ? opts.rule(f, c, { stepsRatio: opts.stepsRatio, defaultPair })
      : defaultPair(f, c);
    if (kind) pairs.push({ taskId: c.task_id, kind, full: f, compressed: c });
  }
  return pairs;
}

/**
 * The step ratio that makes an elongation pair, or null for failure pairs only: the default, as
 * in the paper (the reference makes regressions opt-in, `optimize.include_elongation`).
 */
export function pairStepsRatio(o: { include_elongation: boolean; steps_ratio: number }) {
  return o.include_elongation ? o.steps_ratio : null;
}

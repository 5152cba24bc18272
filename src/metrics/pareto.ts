/**
 * The Pareto front of accuracy against peak tokens (issue #24): a condition is on it when no
 * other condition of the same split has at least its accuracy with fewer peak tokens, or more
 * accuracy with at most its peak tokens. Compares point estimates; the verdict says whether
 * the CIs overlap.
 */
export type ParetoPoint = { accuracy: number; meanPeakTokens: number; tasks?: number };

/** True for each point that no other point dominates (same order as `points`). */
export function paretoFlags(points: readonly ParetoPoint[]): boolean[] {
  const live = points.map((p) => (p.tasks ?? 1) > 0);
  return points.map(
    (p, i) => live[i]! && !points.some((q, j) => j !== i && live[j]! && dominates(q, p)),
  );
}

/** `q` is at least as good on both axes and better on one. */
export function dominates(q: ParetoPoint, p: ParetoPoint): boolean {
  const noWorse = q.accuracy >= p.accuracy && q.meanPeakTokens <= p.meanPeakTokens;
  const better = q.accuracy > p.accuracy || q.meanPeakTokens < p.meanPeakTokens;
  return noWorse && better;
}

/** The rows with a `pareto` flag added. */
export function withPareto<R extends ParetoPoint>(rows: readonly R[]): (R & { pareto: boolean })[] {
  const flags = paretoFlags(rows);
  return rows.map((r, i) => ({ ...r, pareto: flags[i]! }));
}

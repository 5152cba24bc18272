/** Trajectories the report embeds by default (`acon report --max-trajectories`). */
export const DEFAULT_MAX_TRAJECTORIES = 100;

type Row = { split: string; condition: string; success: boolean };

/**
 * The rollouts whose trajectories the report embeds: failures first, since they are what a reader
 * opens the viewer for, then successes. Splits go one after another, those of `splits` first (an
 * optimize's evaluation split, then its selection and train splits: the final table's failures
 * before the optimizer's own), the others by name. Within a split each condition gives its first
 * failure, then its second, and so on, so a budget smaller than the failures still shows every
 * condition's, not only those of the conditions listed first (issue #30: 100 by default, at 5 ms
 * a trajectory on a 10,000-rollout run). Within a condition, in row order.
 */
export function embeddedRollouts<R extends Row>(
  rows: readonly R[],
  max: number,
  splits: readonly string[] = [],
): R[] {
  const rank = (split: string) => (splits.includes(split) ? splits.indexOf(split) : splits.length);
  const bySplit = new Map<string, Map<string, R[]>>();
  for (const r of rows) {
    const conditions = bySplit.get(r.split) ?? new Map<string, R[]>();
    bySplit.set(r.split, conditions);
    const group = conditions.get(r.condition) ?? [];
    conditions.set(r.condition, group);
    group.push(r);
  }
  const ordered = [...bySplit.keys()].sort(
    (a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const out: R[] = [];
  for (const success of [false, true]) {
    for (const split of ordered) {
      const groups = [...bySplit.get(split)!.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, group]) => group.filter((r) => r.success === success));
      for (let i = 0; out.length < max && groups.some((g) => i < g.length); i++) {
        for (const g of groups) if (i < g.length && out.length < max) out.push(g[i]!);
      }
    }
  }
  return out;
}

/** An optimize run's splits, most telling first: evaluation, selection, train (its params). */
export function splitPriority(params: Record<string, unknown>): string[] {
  return [params.evalSplit, params.selectSplit, params.trainSplit].filter(
    (s): s is string => typeof s === 'string',
  );
}

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
  const rank = (split: string) => {
    const i = splits.indexOf(split);
    return i < 0 ? splits.length : i;
  };
  const bySplit = new Map<string, Map<string, R[]>>();
  for (const r of rows) {
    const conditions = bySplit.get(r.split) ?? new Map<string, R[]>();
    bySplit.set(r.split, conditions);
    const group = conditions.get(r.condition) ?? [];
    conditions.set(r.condition, group);
    group.push(r);
  }
  const ordered = [...bySplit.keys()].sort((a, b) => rank(a) - rank(b) || byName(a, b));
  const turns = [false, true].flatMap((success) =>
    ordered.flatMap((split) => {
      const groups = [...bySplit.get(split)!].sort(([a], [b]) => byName(a, b));
      return inTurn(groups.map(([, group]) => group.filter((r) => r.success === success)));
    }),
  );
  return turns.slice(0, max);
}

/** Code-unit order: no locale collation (whose first use builds ICU's collator). */
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The first item of each list, then the second of each, and so on. */
function inTurn<T>(lists: readonly T[][]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
  return out;
}

/** An optimize run's splits, most telling first: evaluation, selection, train (its params). */
export function splitPriority(params: Record<string, unknown>): string[] {
  return [params.evalSplit, params.selectSplit, params.trainSplit].filter(
    (s): s is string => typeof s === 'string',
  );
}

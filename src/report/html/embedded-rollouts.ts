/** Trajectories the report embeds by default (`acon report --max-trajectories`). */
export const DEFAULT_MAX_TRAJECTORIES = 100;

type Row = { split: string; condition: string; success: boolean };

/**
 * The rollouts whose trajectories the report embeds: failures first, since they are what a reader
 * opens the viewer for, then successes. Each is taken in turn from every split and condition (the
 * first failure of each, then the second of each, …), so a budget smaller than the failures still
 * shows every condition's, not only those of the conditions listed first (issue #30: 100 by
 * default, at 5 ms a trajectory on a 10,000-rollout run). Within a condition, in row order.
 */
export function embeddedRollouts<R extends Row>(rows: readonly R[], max: number): R[] {
  const turns = (success: boolean): R[] => {
    const groups = new Map<string, R[]>();
    for (const r of rows) {
      if (r.success !== success) continue;
      const key = `${r.split}\u0000${r.condition}`;
      const group = groups.get(key);
      if (group) group.push(r);
      else groups.set(key, [r]);
    }
    const ordered = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const out: R[] = [];
    for (let i = 0; out.length < max; i++) {
      const before = out.length;
      for (const [, group] of ordered) if (i < group.length) out.push(group[i]!);
      if (out.length === before) break;
    }
    return out;
  };
  return [...turns(false), ...turns(true)].slice(0, max);
}

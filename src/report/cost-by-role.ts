import { noRoleUsage, type RolloutMetrics } from '../domain/index.js';
import type { RoleUsageRow } from '../store/index.js';

/**
 * Calls, tokens and cost of a run by role (the report's cost-by-role view): the sum of its
 * finished rollouts' `metrics.byRole`, which count every call of their rollout, and the calls
 * no finished rollout holds (`RunStore.usageOutsideRollouts`: analyzer, updater, rollouts that
 * never finished). Sorted by role.
 */
export function costByRole(
  rollouts: readonly { metrics: Pick<RolloutMetrics, 'byRole'> }[],
  outside: readonly RoleUsageRow[],
): RoleUsageRow[] {
  const byRole = new Map<string, RoleUsageRow>();
  const add = (role: string, u: Omit<RoleUsageRow, 'role'>) => {
    const total = byRole.get(role) ?? { role, ...noRoleUsage() };
    total.calls += u.calls;
    total.inputTokens += u.inputTokens;
    total.cachedTokens += u.cachedTokens;
    total.outputTokens += u.outputTokens;
    total.reasoningTokens += u.reasoningTokens;
    total.costUsd += u.costUsd;
    byRole.set(role, total);
  };
  for (const { metrics } of rollouts) {
    for (const [role, u] of Object.entries(metrics.byRole)) add(role, u);
  }
  for (const { role, ...u } of outside) add(role, u);
  return [...byRole.values()].sort((a, b) => (a.role < b.role ? -1 : a.role > b.role ? 1 : 0));
}

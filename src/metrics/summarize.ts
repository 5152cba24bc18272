import type { RunStore } from '../store/index.js';
import { conditionMetrics } from './metrics.js';
import type { ConditionMetrics } from '../domain/index.js';
import type { RolloutMetrics } from '../domain/index.js';
import { withPareto } from './pareto.js';
import { scenarioGoalCompletion, type ScenarioOutcome } from './scenario.js';

/**
 * Condition metrics of a run, recomputed from the stored rollout rows (never from in-memory
 * state), in the order of `conditions`. Peak reduction and elongation are against `raw` when
 * the run has it.
 */
export function summarizeRun(
  store: RunStore,
  runId: string,
  conditions: string[],
  seed: number,
  rawCondition = 'raw',
  /** Only these tasks (a run may hold rollouts of several splits). */
  taskIds?: Set<string>,
  /** The benchmark's tasks form scenarios (AppWorld): add scenario goal completion. */
  scenarios = false,
): ConditionMetrics[] {
  const byCondition = new Map<string, RolloutMetrics[]>();
  const outcomes = new Map<string, ScenarioOutcome[]>();
  for (const row of store.rollouts(runId)) {
    if (taskIds && !taskIds.has(row.task_id)) continue;
    // Pushed, not copied: a copy per row made a 10,000-rollout run quadratic.
    const metrics = byCondition.get(row.condition) ?? [];
    const outcome = outcomes.get(row.condition) ?? [];
    metrics.push(row.metrics);
    outcome.push({ taskId: row.task_id, success: row.metrics.success });
    byCondition.set(row.condition, metrics);
    outcomes.set(row.condition, outcome);
  }
  const raw = byCondition.get(rawCondition);
  const rows = conditions.map((c) => {
    const m = conditionMetrics(c, byCondition.get(c) ?? [], { seed, raw });
    return scenarios ? { ...m, sgc: scenarioGoalCompletion(outcomes.get(c) ?? []).sgc } : m;
  });
  return withPareto(rows);
}

export { rolloutMetrics, conditionMetrics, mean, totalInputTokens } from './metrics.js';
export { summarizeRun } from './summarize.js';
export { conditionsVerdict, verdictLine, versionVerdictRows } from './verdict.js';
export { withPareto } from './pareto.js';
export {
  CONDITION_METRIC_DEFINITIONS,
  REPLAY_METRIC_DEFINITIONS,
  ROLE_COST_DEFINITIONS,
  ROLLOUT_METRIC_DEFINITIONS,
  RUN_DIFF_DEFINITIONS,
  type ConditionMetricKey,
  type ReplayMetricKey,
  type RolloutMetricKey,
} from './definitions.js';

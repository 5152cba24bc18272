export { rolloutMetrics, conditionMetrics, mean, totalInputTokens } from './metrics.js';
export { summarizeRun } from './summarize.js';
export { conditionsVerdict, verdictLine, versionVerdictRows } from './verdict.js';
export { withPareto } from './pareto.js';

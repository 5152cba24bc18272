// Running conditions on tasks and storing them: what `acon run` and `acon compare` need, and
// what the optimizer calls for its rollouts. Used from outside this folder through this file.
export { conditionLabel, makeCondition, type Condition } from './condition.js';
export { newRunId, type RunEnv } from './env.js';
export { estimateCostUsd, meanStepsOf, rolloutCalls, type CallEstimate } from './estimate.js';
export { isInfrastructureFailure } from './infra-failures.js';
export {
  runRollouts,
  sharedPrefixTokens,
  systemTokens,
  type RolloutJob,
  type RolloutOutcome,
  type RunRolloutsOptions,
} from './rollouts.js';
export {
  conditionsFor,
  estimateRun,
  formatRunEstimate,
  runConditions,
  RunConditionsResultSchema,
  RunParamsSchema,
  selectTasks,
  type RunConditionsOptions,
  type RunConditionsResult,
  type RunEstimate,
  type RunParams,
} from './run-conditions.js';
export { everyPair, runJobsIn, type RolloutEnv } from './run-jobs.js';
export { inRun, startRun, stoppedRun } from './run-lifecycle.js';
export { checkTaskDigests, taskDigest } from './task-digests.js';
export * from './replay/index.js';

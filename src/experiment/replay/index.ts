// Learning from recorded traffic (issue #57): conversations read from a run or a JSONL file,
// replayed under a guideline pair, scored by agreement and probe recall.
export {
  actionOf,
  defaultAnswerNormalizer,
  normalizeArguments,
  sameAction,
  type Action,
} from './actions.js';
export {
  AnswerVerdictSchema,
  createAnswerJudge,
  type AnswerJudge,
  type AnswerQuestion,
  type JudgeOutcome,
} from './judge.js';
export { findProbes, probesKept, type Probe } from './probes.js';
export { replayTrace, traceTrajectory, type ReplayStep, type TraceReplay } from './replay.js';
export {
  replayMetrics,
  ReplayMetricsSchema,
  traceOutcomes,
  type ReplayMetrics,
} from './replay-metrics.js';
export {
  referenceTraces,
  ReplayParamsSchema,
  ReplayResultSchema,
  ReplayRowSchema,
  runReplay,
  type ReplayParams,
  type ReplayResult,
  type ReplayRow,
} from './replay-run.js';
export { replayTraces, type ReplayCondition, type ReplayTracesOptions } from './replay-traces.js';
export {
  parseTraceLine,
  readTraceFile,
  TraceFileError,
  traceLine,
  type TraceFile,
} from './trace-file.js';
export {
  loadTraces,
  parseTraceSource,
  runTraces,
  TraceProblemsError,
  type LoadedTraces,
  type TraceSource,
} from './trace-source.js';
export { storedReplayMetrics } from './stored-replay.js';
export { splitTraces, traceRank, type TraceFractions, type TraceSplits } from './trace-split.js';

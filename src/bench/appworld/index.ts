export { AppWorldBenchmark, createAppWorld, type AppWorldOptions } from './benchmark.js';
export { AppWorldClient } from './client.js';
export {
  executeTimeoutFor,
  EXECUTE_MARGIN_MS,
  NO_SERVER_LIMIT_MS,
  type AppWorldClientOptions,
  type ExecuteResult,
} from './client-options.js';
export {
  extractCode,
  findCodeBlocks,
  looksLikePython,
  type CodeBlock,
  type ExtractedCode,
} from './code-block.js';
export { AppWorldEpisode, toEvaluation } from './episode.js';
export { experimentName } from './experiment-name.js';
export {
  AppWorldBusyError,
  AppWorldInitializeError,
  AppWorldServerError,
  AppWorldTimeoutError,
  AppWorldUnreachableError,
  START_SERVER_HINT,
} from './errors.js';
export { appWorldSystemPrompt, renderFirstUserMessage } from './prompt.js';
export {
  EvaluateOutputSchema,
  InitializeOutputSchema,
  RequirementSchema,
  SupervisorSchema,
  type EvaluateOutput,
  type InitializeOutput,
  type Requirement,
  type Supervisor,
} from './protocol.js';
export { ServerPool } from './server-pool.js';
export {
  APPWORLD_SPLITS,
  CUSTOM_SPLIT,
  NO_TASK_SOURCE_HINT,
  TaskIdSource,
  parseTaskIds,
} from './task-ids.js';

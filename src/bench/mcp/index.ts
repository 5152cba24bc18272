/** `--bench mcp`: tools from MCP servers, tasks from YAML files (issue 26). */
export {
  McpBenchmark,
  DEFAULT_MCP_TASKS_DIR,
  createMcp,
  mcpTaskInfo,
  type McpOptions,
} from './benchmark.js';
export { McpConnection, McpServerError, type ResolvedServer } from './connection.js';
export { McpEpisode, type FailedStep } from './episode.js';
export { evaluateMcp, answerMatches, normalizeAnswer, readGraph } from './evaluate.js';
export { packageBin, resolvePlaceholders, resolveServer } from './placeholders.js';
export {
  loadMcpTaskDir,
  parseMcpTaskFile,
  renderMcpTaskFile,
  type LoadedMcpTask,
} from './task-loader.js';
export { McpTaskFileSchema, type McpTaskFile, type Check, type ServerSpec } from './task-schema.js';
export { COMPLETE_TASK, renderResult, splitToolName, toolName, toToolDef } from './tools.js';

/** apptown: the built-in offline world of simulated apps (ARCHITECTURE §5, issue 3). */
export {
  ApptownBenchmark,
  DEFAULT_TASKS_DIR,
  createApptown,
  taskInfo,
  type ApptownOptions,
} from './benchmark.js';
export { ApptownEpisode } from './episode.js';
export {
  observationTokenStats,
  percentile,
  splitStats,
  type ObsTokenStats,
  type SplitStats,
} from './obs-stats.js';
export { planToMessages, runPlan, toolCallMessage, type RunPlanOptions } from './drive.js';
export { APPS, APP_NAMES } from './apps/index.js';
export { callApi, renderResponse, type ApiResponse } from './server.js';
export {
  parseTaskFile,
  loadApptownTaskDir,
  type LoadedTask,
  type TaskLoad,
} from './task-loader.js';
export { TaskFileSchema, type TaskFile } from './task-schema.js';
export { createWorld } from './worlds.js';
export { World, WORLD_NOW } from './world.js';

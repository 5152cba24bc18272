export { runEpisode } from './loop.js';
export type { EpisodeResult, RunEpisodeOptions, StopReason } from './loop.js';
export { pairObservations } from './observations.js';
export * from './context/index.js';
export type { AgentEnvironment, ActResult } from './environment.js';
export { STRATEGY_NAMES } from './context/strategy-names.js';

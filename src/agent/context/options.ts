import { ConfigSchema, type Config } from '../../config/index.js';
import type { GuidelinePair } from '../../domain/index.js';

/** `context:` of acon.config.yaml: T_obs, T_hist, k, masking M, summary N/M, FIFO budget. */
export type ContextOptions = Config['context'];

/** The defaults (T_obs 1024, T_hist 4096, k 1, masking M 10, summary N 21 / M 10, FIFO the last 5 turns, retrieval top 5 + last 3). */
export function defaultContextOptions(): ContextOptions {
  return ConfigSchema.shape.context.parse(undefined);
}

export type StrategyOptions = ContextOptions & {
  /** Required by `acon` and `naive` (the runner passes the active, or the v0, guidelines). */
  guidelines?: GuidelinePair;
};

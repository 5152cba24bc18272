import { InvalidInputError } from '../../errors.js';
import { AconStrategy } from './acon.js';
import { createFifo } from './fifo.js';
import { MaskingStrategy } from './masking.js';
import { withTokens } from './messages.js';
import type { StrategyOptions } from './options.js';
import { createRaw } from './raw.js';
import { RetrievalStrategy } from './retrieval.js';
import type { ContextStrategy, StrategyDeps, StrategyName } from './strategy.js';
import { SummaryStrategy } from './summary.js';

/**
 * A fresh strategy for one rollout (strategies keep per-rollout state: compressed observations,
 * the current summary, what was already masked or dropped).
 *
 * @example createStrategy('acon', { ...config.context, guidelines: { obs, hist } }, deps)
 */
export function createStrategy(
  name: StrategyName,
  options: StrategyOptions,
  deps: StrategyDeps,
): ContextStrategy {
  const full = withTokens(deps);
  switch (name) {
    case 'raw':
      return createRaw(full.tokens);
    case 'fifo':
      return createFifo(options.fifo, full.tokens);
    case 'masking':
      return new MaskingStrategy(options.masking.window, full.tokens);
    case 'summary':
      return new SummaryStrategy(options.summary.n, options.summary.m, full);
    case 'retrieval':
      return new RetrievalStrategy(
        { topK: options.retrieval.top_k, recent: options.retrieval.recent },
        full.tokens,
      );
    case 'naive':
    case 'acon': {
      if (options.guidelines === undefined) {
        throw new InvalidInputError(
          `strategy "${name}" needs guidelines: pass { guidelines: { obs, hist } } (the shipped v0 ones for "naive")`,
          { what: 'strategy options', value: name },
        );
      }
      return new AconStrategy(
        name,
        {
          tObs: options.t_obs,
          tHist: options.t_hist,
          keepLast: options.keep_last,
          obsSessionTokens: options.obs_session_tokens,
          guidelines: options.guidelines,
        },
        full,
      );
    }
  }
}

export { AconStrategy } from './acon.js';
export type { AconSettings } from './acon.js';
export { FifoStrategy, createFifo } from './fifo.js';
export { createRaw } from './raw.js';
export { MaskingStrategy, maskTurns } from './masking.js';
export { RetrievalStrategy } from './retrieval.js';
export { SummaryStrategy } from './summary.js';
export { countLines, maskPlaceholder, defaultTokenCounter } from './messages.js';
export { defaultContextOptions } from './options.js';
export type { ContextOptions, StrategyOptions } from './options.js';
export { StrategyNameSchema } from './strategy.js';
export type { ContextStrategy, StrategyDeps, StrategyName, ViewResult } from './strategy.js';

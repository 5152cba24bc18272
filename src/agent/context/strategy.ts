import { z } from 'zod';
import type { CompressorDeps } from '../../compress/index.js';
import type { ChatMessage, TokenCounter } from '../../llm/index.js';
import type { CompressionEvent, Trajectory } from '../../domain/index.js';
import { STRATEGY_NAMES } from './strategy-names.js';

export const StrategyNameSchema = z.enum(STRATEGY_NAMES);
export type StrategyName = z.infer<typeof StrategyNameSchema>;

export type ViewResult = { messages: ChatMessage[]; events: CompressionEvent[] };

/** What a strategy may use; built per rollout by the runner (the compressors' deps, tokens optional). */
export type StrategyDeps = Omit<CompressorDeps, 'tokens'> & {
  /** Token counts for thresholds and budgets. @default the shared o200k counter of src/llm/tokenizer.ts */
  tokens?: TokenCounter;
};

/**
 * A context strategy of one rollout. It may keep state (compressed observations, the current
 * summary) but never changes the trajectory it is given: the full trajectory is always kept.
 */
export interface ContextStrategy {
  readonly name: StrategyName;
  /** The messages to send the agent at `step` (= trajectory.turns.length), and what it compressed. */
  view(trajectory: Trajectory, step: number): Promise<ViewResult>;
  /**
   * Reactive compression (seed 002): the provider said the prompt is too long; shrink the
   * history now. Returns the events; the caller retries the step once.
   */
  compressNow(trajectory: Trajectory, step: number): Promise<CompressionEvent[]>;
}

import type { TokenCounter } from '../../llm/index.js';
import { FifoStrategy } from './fifo.js';

/**
 * No context management (seed 001 "Raw Agent"): system, task, then every turn as it happened.
 * Only a context-length error from the provider changes that: the agent cannot continue with
 * the full history, so the oldest turns are dropped (FIFO with a budget of 70% of the refused
 * prompt) and recorded as a `reactive` event.
 */
export function createRaw(tokens: TokenCounter): FifoStrategy {
  return new FifoStrategy('raw', Number.POSITIVE_INFINITY, tokens);
}

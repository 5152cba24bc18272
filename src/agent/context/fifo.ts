import type { TokenCounter } from '../../llm/tokenizer.js';
import type { Trajectory } from '../../domain/trajectory.js';
import { firstKeptTurn, reactiveBudget, turnsTokens, viewFrom, viewTokens } from './drop-oldest.js';
import type { ContextStrategy, StrategyName, ViewResult } from './strategy.js';
import type { CompressionEvent } from '../../domain/compression-event.js';

/**
 * FIFO truncation (the ACON paper's FIFO baseline, seed 003): drop the oldest whole turns until
 * the prompt (messages, without tool definitions) fits `budget` tokens. The system prompt and the
 * task are always kept, and so is the newest turn.
 *
 * Also the engine of `raw`, whose budget is unlimited until a context-length error sets one.
 */
export class FifoStrategy implements ContextStrategy {
  /** Turns dropped so far; never decreases, since turns are only appended. */
  private dropped = 0;

  constructor(
    readonly name: StrategyName,
    private budget: number,
    private readonly tokens: TokenCounter,
  ) {}

  async view(trajectory: Trajectory, step: number): Promise<ViewResult> {
    const events: CompressionEvent[] = [];
    const from = Number.isFinite(this.budget)
      ? Math.max(this.dropped, firstKeptTurn(trajectory, this.budget, this.tokens))
      : this.dropped;
    if (from > this.dropped) {
      events.push(this.dropEvent('fifo', trajectory, from, step));
      this.dropped = from;
    }
    return { messages: viewFrom(trajectory, this.dropped), events };
  }

  async compressNow(trajectory: Trajectory, step: number): Promise<CompressionEvent[]> {
    const current = viewTokens(trajectory, this.dropped, this.tokens);
    this.budget = Math.min(this.budget, reactiveBudget(current));
    const from = Math.max(this.dropped, firstKeptTurn(trajectory, this.budget, this.tokens));
    const event = this.dropEvent('reactive', trajectory, from, step);
    this.dropped = from;
    return [event];
  }

  private dropEvent(
    kind: 'fifo' | 'reactive',
    trajectory: Trajectory,
    from: number,
    step: number,
  ): CompressionEvent {
    return {
      kind,
      step,
      inputTokens: turnsTokens(trajectory, this.dropped, from, this.tokens),
      outputTokens: 0,
      input: '',
      output: '',
      guidelineId: null,
      callId: null,
      // Nothing could be dropped (only the newest turn is left): the retry will fail again.
      failed: from <= this.dropped,
    };
  }
}

export function createFifo(budget: number, tokens: TokenCounter): FifoStrategy {
  return new FifoStrategy('fifo', budget, tokens);
}

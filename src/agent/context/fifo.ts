import type { TokenCounter } from '../../llm/index.js';
import type { Trajectory, CompressionEvent } from '../../domain/index.js';
import { firstKeptTurn, reactiveBudget, turnsTokens, viewFrom, viewTokens } from './drop-oldest.js';
import { HeadMessages } from './messages.js';
import type { ContextStrategy, StrategyName, ViewResult } from './strategy.js';

/**
 * FIFO truncation (the ACON paper's FIFO baseline): the system prompt and the task, then only
 * the last `turns` turns (paper v3: the last 5); or, with a token `budget` instead, the oldest
 * whole turns dropped until the prompt (messages, without tool definitions) fits it. The newest
 * turn is always kept.
 *
 * Also the engine of `raw`, whose budget is unlimited until a context-length error sets one.
 */
export class FifoStrategy implements ContextStrategy {
  /** Turns dropped so far; never decreases, since turns are only appended. */
  private dropped = 0;
  private readonly heads = new HeadMessages();

  constructor(
    readonly name: StrategyName,
    private budget: number,
    private readonly tokens: TokenCounter,
    /** Keep at most this many turns (with an unlimited budget: the paper's FIFO). */
    private readonly maxTurns = Number.POSITIVE_INFINITY,
  ) {}

  async view(trajectory: Trajectory, step: number): Promise<ViewResult> {
    const events: CompressionEvent[] = [];
    let from = Number.isFinite(this.budget)
      ? Math.max(this.dropped, firstKeptTurn(trajectory, this.heads, this.budget, this.tokens))
      : this.dropped;
    if (Number.isFinite(this.maxTurns)) {
      from = Math.max(from, trajectory.turns.length - this.maxTurns);
    }
    if (from > this.dropped) {
      events.push(this.dropEvent('fifo', trajectory, from, step));
      this.dropped = from;
    }
    return { messages: viewFrom(trajectory, this.heads, this.dropped), events };
  }

  async compressNow(trajectory: Trajectory, step: number): Promise<CompressionEvent[]> {
    const current = viewTokens(trajectory, this.heads, this.dropped, this.tokens);
    this.budget = Math.min(this.budget, reactiveBudget(current));
    const from = Math.max(
      this.dropped,
      firstKeptTurn(trajectory, this.heads, this.budget, this.tokens),
    );
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

/**
 * @example createFifo({ turns: 5, budget: null }, tokens) // the paper's FIFO: the last 5 turns
 * @example createFifo({ turns: 5, budget: 8192 }, tokens) // the token-budget variant
 */
export function createFifo(
  options: { turns: number; budget: number | null },
  tokens: TokenCounter,
): FifoStrategy {
  return options.budget === null
    ? new FifoStrategy('fifo', Number.POSITIVE_INFINITY, tokens, options.turns)
    : new FifoStrategy('fifo', options.budget, tokens);
}

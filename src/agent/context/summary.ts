import { compressSummary, type CompressorDeps, renderTurns } from '../../compress/index.js';
import type { ChatMessage } from '../../llm/index.js';
import type { Trajectory, CompressionEvent } from '../../domain/index.js';
import { flattenTurns, HeadMessages, summaryMessage } from './messages.js';
import type { ContextStrategy, ViewResult } from './strategy.js';

/**
 * LLM summary (seed 001 §3.1 eqs. 5–6, OpenHands). With turns T_1 … T_{t-1} done and t_last the
 * last turn folded into the summary s_last:
 *
 * - when (t-1) - t_last reaches N + M, the summarizer folds s_last and T_{t_last+1} … T_{t-1-M}
 *   into s_t, and t_last becomes t-1-M;
 * - the agent sees (o_sys, o_user, s_last, T_{t_last+1}, …, T_{t-1}); right after a summary that
 *   is (o_sys, o_user, s_t, T_{t-M}, …, T_{t-1}).
 *
 * So each summary folds N turns and the view holds between M and N+M-1 turns. The seed passes
 * the task as s_last before the first summary; our prompt always carries the task, and says
 * `(none)` for the previous summary.
 */
export class SummaryStrategy implements ContextStrategy {
  readonly name = 'summary' as const;
  /** t_last: turns folded into the summary (0-based: turns[0 .. tLast) are folded). */
  private tLast = 0;
  private summary: string | null = null;
  private shown: { summary: string; tLast: number; message: ChatMessage } | undefined;
  private readonly heads = new HeadMessages();

  constructor(
    private readonly n: number,
    private readonly m: number,
    private readonly deps: CompressorDeps,
  ) {}

  async view(trajectory: Trajectory, step: number): Promise<ViewResult> {
    const events: CompressionEvent[] = [];
    const done = trajectory.turns.length;
    if (done - this.tLast >= this.n + this.m) {
      events.push(await this.fold(trajectory, done - this.m, step, 'summary'));
    }
    return { messages: this.messages(trajectory), events };
  }

  /**
   * Reactive compression (seed 002): summarize now, keeping the last M turns, or fewer when
   * there are not more than M since the last summary (the newest one stays if it can).
   */
  async compressNow(trajectory: Trajectory, step: number): Promise<CompressionEvent[]> {
    const since = trajectory.turns.length - this.tLast;
    const keep = since > this.m ? this.m : Math.max(0, Math.min(1, since - 1));
    if (since - keep <= 0) return [nothingToFold(step)];
    return [await this.fold(trajectory, trajectory.turns.length - keep, step, 'reactive')];
  }

  /** Folds s_last and turns[tLast .. to) into a new summary; t_last = to on success. */
  private async fold(
    trajectory: Trajectory,
    to: number,
    step: number,
    kind: 'summary' | 'reactive',
  ): Promise<CompressionEvent> {
    const outcome = await compressSummary(
      {
        task: trajectory.task,
        previousSummary: this.summary,
        history: renderTurns(trajectory.turns.slice(this.tLast, to), this.tLast + 1),
        step,
        kind,
      },
      this.deps,
    );
    if (outcome.ok) {
      this.summary = outcome.text;
      this.tLast = to;
    }
    return outcome.event;
  }

  private messages(trajectory: Trajectory): ChatMessage[] {
    const head = this.heads.of(trajectory);
    const rest = flattenTurns(trajectory.turns.slice(this.tLast));
    if (this.summary === null) return [...head, ...rest];
    // The same message object while the summary stands (counts are remembered per object).
    if (this.shown?.summary !== this.summary || this.shown.tLast !== this.tLast) {
      this.shown = {
        summary: this.summary,
        tLast: this.tLast,
        message: summaryMessage(this.summary, this.tLast),
      };
    }
    return [...head, this.shown.message, ...rest];
  }
}

/** A reactive compression that found nothing to fold: recorded, and the retry will tell. */
export function nothingToFold(step: number): CompressionEvent {
  return {
    kind: 'reactive',
    step,
    inputTokens: 0,
    outputTokens: 0,
    input: '',
    output: '',
    guidelineId: null,
    callId: null,
    failed: true,
  };
}

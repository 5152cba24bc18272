import type { TokenCounter } from '../../llm/index.js';
import type { Trajectory, Turn, CompressionEvent } from '../../domain/index.js';
import {
  flattenTurns,
  HeadMessages,
  maskPlaceholder,
  withObservationContents,
} from './messages.js';
import type { ContextStrategy, ViewResult } from './strategy.js';

/**
 * Observation masking (seed 001 §3.1 eq. 4, SWE-agent): with turns T_1 … T_{t-1} done, the
 * observation o_i is replaced by "Previous N lines omitted for brevity." iff i < t - M, i.e.
 * every turn but the last M keeps its reasoning and action and loses its observation.
 */
export function maskTurns(
  turns: readonly Turn[],
  window: number,
  masked: WeakMap<Turn, Turn> = new WeakMap(),
): Turn[] {
  const t = turns.length + 1;
  return turns.map((turn, index) => {
    const i = index + 1;
    return i < t - window ? maskTurn(turn, masked) : turn;
  });
}

/**
 * A turn masked, remembered in `maskedTurns` by the turn it masks: a turn never changes once in a
 * trajectory, and the same masked object at every later step lets token counts and request
 * hashes remembered per message object hit (issue #28), besides not counting the lines of every
 * old observation again.
 */
function maskTurn(turn: Turn, maskedTurns: WeakMap<Turn, Turn>): Turn {
  const hit = maskedTurns.get(turn);
  if (hit !== undefined) return hit;
  const masked = withObservationContents(
    turn,
    turn.observations.map((m) => maskPlaceholder(m.content ?? '')),
  );
  maskedTurns.set(turn, masked);
  return masked;
}

/** Number of turns masked at the start of turn t = turns + 1. */
function maskedCount(turns: number, window: number): number {
  return Math.max(0, turns - window);
}

export class MaskingStrategy implements ContextStrategy {
  readonly name = 'masking' as const;
  /** Turns whose observations are already masked (reported once, when they become masked). */
  private masked = 0;
  private readonly heads = new HeadMessages();
  /** The masked copy of each turn of this rollout, by turn (see maskTurn). */
  private readonly maskedTurns = new WeakMap<Turn, Turn>();

  constructor(
    private window: number,
    private readonly tokens: TokenCounter,
  ) {}

  async view(trajectory: Trajectory, step: number): Promise<ViewResult> {
    const events: CompressionEvent[] = [];
    const target = maskedCount(trajectory.turns.length, this.window);
    if (target > this.masked) {
      events.push(this.maskEvent('mask', trajectory, target, step));
      this.masked = target;
    }
    return {
      messages: [
        ...this.heads.of(trajectory),
        ...flattenTurns(maskTurns(trajectory.turns, this.window, this.maskedTurns)),
      ],
      events,
    };
  }

  /** Reactive compression (seed 002): halve the window for the rest of the rollout. */
  async compressNow(trajectory: Trajectory, step: number): Promise<CompressionEvent[]> {
    this.window = Math.floor(this.window / 2);
    const target = maskedCount(trajectory.turns.length, this.window);
    const event = this.maskEvent('reactive', trajectory, target, step);
    this.masked = Math.max(this.masked, target);
    return [event];
  }

  private maskEvent(
    kind: 'mask' | 'reactive',
    trajectory: Trajectory,
    target: number,
    step: number,
  ): CompressionEvent {
    let inputTokens = 0;
    let outputTokens = 0;
    for (const turn of trajectory.turns.slice(this.masked, target)) {
      for (const m of turn.observations) {
        const content = m.content ?? '';
        inputTokens += this.tokens.countTokens(content);
        outputTokens += this.tokens.countTokens(maskPlaceholder(content));
      }
    }
    return {
      kind,
      step,
      inputTokens,
      outputTokens,
      input: '',
      output: '',
      guidelineId: null,
      callId: null,
      failed: target <= this.masked,
    };
  }
}

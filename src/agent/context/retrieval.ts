import type { TokenCounter } from '../../llm/index.js';
import type { CompressionEvent, Trajectory, Turn } from '../../domain/index.js';
import { Bm25Index } from './bm25.js';
import { flattenTurns, HeadMessages } from './messages.js';
import type { ContextStrategy, ViewResult } from './strategy.js';

/** `context.retrieval` of acon.config.yaml. */
export type RetrievalSettings = {
  /** Older turns brought back by relevance. @default 5 */
  topK: number;
  /** Newest turns always kept verbatim. @default 3 */
  recent: number;
};

/** What a turn is indexed and queried by: reasoning, actions with arguments, observations. */
export function turnText(turn: Turn): string {
  const parts = [turn.assistant.content ?? ''];
  for (const call of turn.assistant.tool_calls ?? []) {
    parts.push(call.function.name, call.function.arguments);
  }
  for (const m of turn.observations) parts.push(m.content ?? '');
  return parts.join('\n');
}

/** The `k` best of an index for `query`: BM25 order, ties to the newer turn. */
function best(index: Bm25Index, query: string, k: number): number[] {
  return [...index.scores(query)]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || b.id - a.id)
    .slice(0, k)
    .map((r) => r.id);
}

/**
 * The turns of `older` (indices) most relevant to `query` by BM25+ (bm25.ts), best first, ties
 * to the newer turn; turns that share no term with the query are never chosen.
 */
export function rankTurns(
  turns: readonly Turn[],
  older: readonly number[],
  query: string,
  k: number,
): number[] {
  if (k <= 0 || older.length === 0) return [];
  const index = new Bm25Index();
  for (const i of older) index.add(i, turnText(turns[i]!));
  return best(index, query, k);
}

/**
 * The index of a trajectory's first `count` turns, grown as turns become older: a rollout's
 * older turns only ever grow, and a turn never changes once it is in the trajectory, so adding
 * the new ones gives the index `rankTurns` would build from scratch at every step (the same
 * documents in the same order), without indexing the whole history again (issue #28).
 */
class OlderTurns {
  private index = new Bm25Index();
  private trajectory: Trajectory | null = null;
  private size = 0;

  rank(trajectory: Trajectory, count: number, query: string, k: number): number[] {
    if (k <= 0 || count === 0) return [];
    if (trajectory !== this.trajectory || count < this.size) {
      this.index = new Bm25Index();
      this.trajectory = trajectory;
      this.size = 0;
    }
    for (; this.size < count; this.size++) {
      this.index.add(this.size, turnText(trajectory.turns[this.size]!));
    }
    return best(this.index, query, k);
  }
}

/**
 * Retrieval (the ACON paper's retrieval baseline): the system prompt, the task, the `topK` older
 * turns most relevant by BM25 to the task plus the latest turn, and the last `recent` turns, in
 * their original order. Whole turns are kept or left out, so a tool call never loses its result.
 * The full trajectory stays; which older turns are shown is decided again at every step.
 */
export class RetrievalStrategy implements ContextStrategy {
  readonly name = 'retrieval' as const;
  /** Older turns left out in the view before (an event is recorded when this set changes). */
  private hidden = '';
  private readonly older = new OlderTurns();
  private readonly heads = new HeadMessages();

  constructor(
    private settings: RetrievalSettings,
    private readonly tokens: TokenCounter,
  ) {}

  /** Indices of the turns shown at this point of `trajectory`. */
  shownTurns(trajectory: Trajectory): number[] {
    const n = trajectory.turns.length;
    const firstRecent = Math.max(0, n - this.settings.recent);
    const latest = n > 0 ? turnText(trajectory.turns[n - 1]!) : '';
    const picked = this.older.rank(
      trajectory,
      firstRecent,
      `${trajectory.task}\n${latest}`,
      this.settings.topK,
    );
    const recent = Array.from({ length: n - firstRecent }, (_, i) => firstRecent + i);
    return [...picked.sort((a, b) => a - b), ...recent];
  }

  async view(trajectory: Trajectory, step: number): Promise<ViewResult> {
    const shown = this.shownTurns(trajectory);
    const keep = new Set(shown);
    const hidden = trajectory.turns.map((_, i) => i).filter((i) => !keep.has(i));
    const events: CompressionEvent[] = [];
    const key = hidden.join(',');
    if (hidden.length > 0 && key !== this.hidden) {
      events.push(this.event('retrieval', trajectory, hidden, step, false));
    }
    this.hidden = key;
    const turns = shown.map((i) => trajectory.turns[i]!);
    return { messages: [...this.heads.of(trajectory), ...flattenTurns(turns)], events };
  }

  /** Reactive compression (seed 002): halve the retrieved and the recent turns (at least 1 recent). */
  async compressNow(trajectory: Trajectory, step: number): Promise<CompressionEvent[]> {
    const before = this.shownTurns(trajectory).length;
    this.settings = {
      topK: Math.floor(this.settings.topK / 2),
      recent: Math.max(1, Math.floor(this.settings.recent / 2)),
    };
    const shown = new Set(this.shownTurns(trajectory));
    const hidden = trajectory.turns.map((_, i) => i).filter((i) => !shown.has(i));
    this.hidden = hidden.join(',');
    return [this.event('reactive', trajectory, hidden, step, shown.size >= before)];
  }

  private event(
    kind: 'retrieval' | 'reactive',
    trajectory: Trajectory,
    hidden: number[],
    step: number,
    failed: boolean,
  ): CompressionEvent {
    const turns = hidden.map((i) => trajectory.turns[i]!);
    return {
      kind,
      step,
      inputTokens:
        turns.length === 0
          ? 0
          : this.tokens.countMessageTokens(flattenTurns(turns)) -
            this.tokens.countMessageTokens([]),
      outputTokens: 0,
      input: '',
      output: '',
      guidelineId: null,
      callId: null,
      failed,
    };
  }
}

import {
  compressHistory,
  compressObservation,
  renderAction,
  renderTurns,
  type CompressorDeps,
} from '../../compress/index.js';
import type { ChatMessage } from '../../llm/index.js';
import type { Trajectory, Turn, CompressionEvent } from '../../domain/index.js';
import { flattenTurns, HeadMessages, summaryMessage, withObservationContents } from './messages.js';
import type { GuidelinePair } from './options.js';
import type { ContextStrategy, StrategyName, ViewResult } from './strategy.js';
import { nothingToFold } from './summary.js';

export type AconSettings = {
  /** Compress an observation longer than this many tokens (T_obs, seed 003). */
  tObs: number;
  /** Compress the history (everything after system + task) once longer than this (T_hist). */
  tHist: number;
  /** Turns kept verbatim after a history compression (k). */
  keepLast: number;
  /**
   * Tokens of the session shown to the observation compressor; its oldest turns are left out
   * beyond this (the summary goes first).
   */
  obsSessionTokens: number;
  guidelines: GuidelinePair;
};

type CompressedObservation = { original: string; text: string };

/**
 * ACON (seed 003) with guidelines P_obs and P_hist; `naive` is the same machinery with the
 * generic v0 guidelines.
 *
 * - Observation compression: an observation message of more than T_obs tokens is rewritten once
 *   (o'_t = f(o_t, h_{t-1}; P_obs)) and the rewrite replaces it in every later view.
 * - History compression: when the history — summary message plus visible turns — is over T_hist
 *   tokens, the previous summary and all visible turns but the last k are folded into a new
 *   summary (h'_t = f(h_t; P_hist)). System prompt, task and the last k turns stay verbatim.
 *
 * A failed compression keeps the uncompressed text and is recorded with `failed: true`.
 */
export class AconStrategy implements ContextStrategy {
  /** Keyed `turn:message`; the original is kept to notice a different trajectory. */
  private readonly observations = new Map<string, CompressedObservation>();
  /** Turns folded into the summary: turns[0 .. tLast) are no longer shown. */
  private tLast = 0;
  private summary: string | null = null;
  /** visibleTurn's answers by turn index, with the turn object each was made from. */
  private readonly visible = new Map<number, { turn: Turn; view: Turn }>();
  /**
   * Observation messages found at most T_obs tokens, with the content that was counted: every
   * step looks at every observation since t_last, and counting the short ones again each time
   * was the tokenizer's largest caller (issue #28).
   */
  private readonly short = new WeakMap<ChatMessage, string>();
  /** The summary message last shown, reused while the summary and t_last stay the same. */
  private shownSummary: { summary: string; tLast: number; message: ChatMessage } | null = null;
  private readonly heads = new HeadMessages();

  constructor(
    readonly name: Extract<StrategyName, 'acon' | 'naive'>,
    private readonly settings: AconSettings,
    private readonly deps: CompressorDeps,
  ) {}

  async view(trajectory: Trajectory, step: number): Promise<ViewResult> {
    const events = await this.compressObservations(trajectory, step);
    const n = trajectory.turns.length;
    if (
      n - this.tLast > this.settings.keepLast &&
      this.historyTokens(trajectory) > this.settings.tHist
    ) {
      events.push(await this.fold(trajectory, n - this.settings.keepLast, step, 'hist'));
    }
    return { messages: this.messages(trajectory), events };
  }

  /**
   * Reactive compression (seed 002): fold the history now, keeping the last k turns, or none
   * when only the newest turn is left to fold.
   */
  async compressNow(trajectory: Trajectory, step: number): Promise<CompressionEvent[]> {
    const since = trajectory.turns.length - this.tLast;
    const keep = since > this.settings.keepLast ? this.settings.keepLast : 0;
    if (since - keep <= 0) return [nothingToFold(step)];
    return [await this.fold(trajectory, trajectory.turns.length - keep, step, 'reactive')];
  }

  /**
   * The turn as the agent sees it: compressed observations substituted. The same object while
   * the turn and its compressions stay the same (token counts and the records a simulated agent
   * reads are remembered per message object; issue #28).
   */
  private visibleTurn(trajectory: Trajectory, index: number): Turn {
    const turn = trajectory.turns[index]!;
    const hit = this.visible.get(index);
    if (hit !== undefined && hit.turn === turn) return hit.view;
    const view = this.substituted(turn, index);
    this.visible.set(index, { turn, view });
    return view;
  }

  private substituted(turn: Turn, index: number): Turn {
    let changed = false;
    const contents = turn.observations.map((m, j) => {
      const content = m.content ?? '';
      const hit = this.observations.get(`${index}:${j}`);
      if (hit === undefined || hit.original !== content) return content;
      changed = true;
      return hit.text;
    });
    return changed ? withObservationContents(turn, contents) : turn;
  }

  private async compressObservations(
    trajectory: Trajectory,
    step: number,
  ): Promise<CompressionEvent[]> {
    const events: CompressionEvent[] = [];
    for (let index = this.tLast; index < trajectory.turns.length; index++) {
      const turn = trajectory.turns[index]!;
      for (const [j, m] of turn.observations.entries()) {
        const key = `${index}:${j}`;
        const content = m.content ?? '';
        if (this.observations.get(key)?.original === content) continue;
        if (this.short.get(m) === content) continue;
        if (this.deps.tokens.countTokens(content) <= this.settings.tObs) {
          this.short.set(m, content);
          continue;
        }
        const outcome = await compressObservation(
          {
            task: trajectory.task,
            session: this.session(trajectory, index),
            observation: content,
            guideline: this.settings.guidelines.obs,
            step,
          },
          this.deps,
        );
        // A failure is remembered too: the observation is compressed once or never.
        this.observations.set(key, { original: content, text: outcome.text });
        this.visible.delete(index);
        events.push(outcome.event);
      }
    }
    return events;
  }

  /**
   * h_{t-1} for the observation compressor, as the reference passes it: the current session as
   * the agent sees it (the history summary, then the turns since it, compressed observations
   * substituted), ending with the action that produced the observation. Beyond
   * `obsSessionTokens` the oldest turns are left out, then the summary.
   */
  private session(trajectory: Trajectory, index: number): string {
    const action = renderAction(trajectory.turns[index]!, index + 1);
    let budget = this.settings.obsSessionTokens - this.deps.tokens.countTokens(action);
    const parts: string[] = [action];
    for (let i = index - 1; i >= this.tLast; i--) {
      const text = renderTurns([this.visibleTurn(trajectory, i)], i + 1);
      const cost = this.deps.tokens.countTokens(text);
      if (cost > budget) break;
      budget -= cost;
      parts.unshift(text);
    }
    const firstShown = index + 1 - parts.length;
    if (this.summary !== null && firstShown === this.tLast) {
      const summary = this.summaryMessage(this.summary).content ?? '';
      if (this.deps.tokens.countTokens(summary) <= budget) parts.unshift(summary);
    }
    return parts.join('\n\n');
  }

  private historyMessages(trajectory: Trajectory): ChatMessage[] {
    const turns: Turn[] = [];
    for (let i = this.tLast; i < trajectory.turns.length; i++) {
      turns.push(this.visibleTurn(trajectory, i));
    }
    const rest = flattenTurns(turns);
    return this.summary === null ? rest : [this.summaryMessage(this.summary), ...rest];
  }

  private summaryMessage(summary: string): ChatMessage {
    const shown = this.shownSummary;
    if (shown !== null && shown.summary === summary && shown.tLast === this.tLast) {
      return shown.message;
    }
    const message = summaryMessage(summary, this.tLast);
    this.shownSummary = { summary, tLast: this.tLast, message };
    return message;
  }

  private historyTokens(trajectory: Trajectory): number {
    return this.deps.tokens.countMessageTokens(this.historyMessages(trajectory));
  }

  private messages(trajectory: Trajectory): ChatMessage[] {
    return [...this.heads.of(trajectory), ...this.historyMessages(trajectory)];
  }

  /** Folds the summary and turns[tLast .. to) (as the agent saw them); t_last = to on success. */
  private async fold(
    trajectory: Trajectory,
    to: number,
    step: number,
    kind: 'hist' | 'reactive',
  ): Promise<CompressionEvent> {
    const turns: Turn[] = [];
    for (let i = this.tLast; i < to; i++) turns.push(this.visibleTurn(trajectory, i));
    const outcome = await compressHistory(
      {
        task: trajectory.task,
        previousSummary: this.summary,
        history: renderTurns(turns, this.tLast + 1),
        guideline: this.settings.guidelines.hist,
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
}

import { createRaw, type ContextStrategy } from '../../agent/index.js';
import type {
  CompressionEvent,
  AssistantMessage,
  ChatMessage,
  Trace,
  Trajectory,
} from '../../domain/index.js';
import {
  promptTexts,
  type TokenCounter,
  type CallContext,
  type LlmClient,
  type ToolDef,
} from '../../llm/index.js';
import { indexTrajectory } from '../../runtime/index.js';
import { actionOf, sameAction, type Action } from './actions.js';
import type { AnswerJudge, JudgeOutcome } from './judge.js';
import { findProbes, probesKept, type Probe } from './probes.js';

/**
 * Counterfactual replay of one recorded conversation under a context strategy: at every step the
 * strategy builds the view it would have shown; where that view differs from the full context,
 * the agent model is asked for its next action on it, and the answer is compared with the action
 * the agent recorded under full context. Where the view is the full context, the recorded action
 * stands (no call): the agent saw exactly what it saw then.
 */
export type ReplayStep = {
  step: number;
  /** The view differed from the full context (a compressor fired at or before this step). */
  compressed: boolean;
  /** The replayed action equals the recorded one (always true where nothing was compressed). */
  agrees: boolean;
  recorded: Action;
  /** The agent's action on the compressed view; null where no call was needed. */
  replayed: Action | null;
  /** Probes used at this step that the view kept and lost. */
  kept: Probe[];
  lost: Probe[];
  /**
   * The judge's decision, where a judge is configured and both actions were free-text answers
   * whose normalised texts differ (then `agrees` is its verdict); absent otherwise.
   */
  judged?: JudgeOutcome;
  /** Tokens of the view (messages and tools). */
  viewTokens: number;
  fullTokens: number;
};

export type TraceReplay = {
  traceId: string;
  steps: ReplayStep[];
  events: CompressionEvent[];
};

/** A recorded conversation as the trajectory the strategies read (head, then one turn per assistant message). */
export function traceTrajectory(trace: Trace): Trajectory {
  // The proxy reads a live message list the same way (head, then a turn per assistant message).
  return indexTrajectory(trace.messages).trajectory;
}

export type ReplayOptions = {
  trace: Trace;
  /** A fresh strategy for this conversation (strategies keep per-rollout state). */
  strategy: ContextStrategy;
  llm: LlmClient;
  tokens: TokenCounter;
  callCtx: Omit<CallContext, 'role' | 'step'>;
  normalizeAnswer?: (s: string) => string;
  /** `roles.judge`: decides free-text answers the normaliser finds different. */
  judge?: AnswerJudge;
};

function sameView(a: readonly ChatMessage[], b: readonly ChatMessage[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}

export async function replayTrace(opts: ReplayOptions): Promise<TraceReplay> {
  const full = traceTrajectory(opts.trace);
  const tools = opts.trace.tools as ToolDef[];
  const probes = findProbes(opts.trace.messages);
  const raw = createRaw(opts.tokens);
  // A counter that asks a server fetches the counts first (server-tokenizer.ts says why).
  const prepare = (messages: readonly ChatMessage[]) =>
    opts.tokens.prepare?.(promptTexts(messages, tools));
  await prepare([
    { role: 'system', content: full.system },
    { role: 'user', content: full.task },
    ...full.turns.flatMap((t) => [t.assistant, ...t.observations]),
  ]);
  const steps: ReplayStep[] = [];
  const events: CompressionEvent[] = [];
  for (let step = 0; step < full.turns.length; step++) {
    const prefix: Trajectory = { ...full, turns: full.turns.slice(0, step) };
    const view = await opts.strategy.view(prefix, step);
    events.push(...view.events);
    const whole = (await raw.view(prefix, step)).messages;
    const compressed = !sameView(view.messages, whole);
    if (compressed) await prepare(view.messages);
    const recorded = actionOf(full.turns[step]!.assistant);
    let replayed: Action | null = null;
    let agrees = true;
    let judged: JudgeOutcome | undefined;
    if (compressed) {
      const result = await opts.llm.chat(
        tools.length > 0 ? { messages: view.messages, tools } : { messages: view.messages },
        { ...opts.callCtx, role: 'agent', step },
      );
      replayed = actionOf(result.message as AssistantMessage);
      agrees = sameAction(recorded, replayed, opts.normalizeAnswer);
      // Two wordings of one answer are the judge's to tell apart, not the normaliser's.
      if (!agrees && opts.judge && recorded.kind === 'answer' && replayed.kind === 'answer') {
        judged = await opts.judge({
          task: full.task,
          recorded: recorded.text,
          replayed: replayed.text,
          ctx: { ...opts.callCtx, step },
        });
        agrees = judged.verdict === 'equivalent';
      }
    }
    const { kept, lost } = probesKept(probes, step, view.messages);
    steps.push({
      step,
      compressed,
      agrees,
      ...(judged ? { judged } : {}),
      recorded,
      replayed,
      kept,
      lost,
      viewTokens: opts.tokens.countMessageTokens(view.messages, tools),
      fullTokens: opts.tokens.countMessageTokens(whole, tools),
    });
  }
  return { traceId: opts.trace.id, steps, events };
}

import {
  type CompressionEvent,
  type AssistantMessage,
  type Trace,
  type Trajectory,
  UtilityAnalysisSchema,
  type UtilityAnalysis,
} from '../domain/index.js';
import type { Action, ReplayStep, TraceReplay } from '../experiment/index.js';
import { traceTrajectory } from '../experiment/index.js';
import type { GuidelineKind } from '../guidelines/index.js';
import type { CallContext, LlmClient } from '../llm/index.js';
import { renderPrompt } from '../prompts/index.js';
import { UTILITY_ANALYSIS_FORMAT } from './analysis.js';
import { analyzeSuccessfulRun, type AnalysisRecord, type AnalysisSource } from './analyze.js';
import { askJson } from './ask-json.js';
import { renderTrajectory } from './render-trajectory.js';

/** Real models get observations cut to this many characters, as in analyze.ts. */
const MAX_OBSERVATION_CHARS = 6_000;

/**
 * The contrastive case of a replayed conversation (issue #57): the first step where the agent,
 * shown the compressed context, did something other than its recorded action (the recorded
 * action is the "success" side, the replayed one the "failure" side); without such a step, the
 * first step whose probes the context lost (the agent happened to act alike, but the values were
 * gone). Null when the compression changed nothing the conversation needed.
 */
export function contrastiveStep(replay: TraceReplay): ReplayStep | null {
  return (
    replay.steps.find((s) => s.compressed && !s.agrees) ??
    replay.steps.find((s) => s.lost.length > 0) ??
    null
  );
}

/** An action as the assistant message that would have made it (for rendering). */
export function actionMessage(action: Action, step: number): AssistantMessage {
  if (action.kind === 'answer') return { role: 'assistant', content: action.text };
  return {
    role: 'assistant',
    content: null,
    tool_calls: action.calls.map((c, i) => ({
      id: `replay_${step}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: c.args },
    })),
  };
}

function actionText(action: Action | null): string {
  if (action === null) return '(the same as recorded)';
  if (action.kind === 'answer') return `answer: ${action.text}`;
  return action.calls.map((c) => `${c.name} ${c.args}`).join('; ');
}

/**
 * The counterfactual conversation: the recorded turns before `step` (shown through the replay's
 * compressions up to that step), then the replayed action, which nothing answered.
 */
export function counterfactualTrajectory(
  full: Trajectory,
  step: ReplayStep,
): { trajectory: Trajectory; last: AssistantMessage } {
  const last = actionMessage(step.replayed ?? step.recorded, step.step);
  return {
    trajectory: {
      ...full,
      turns: [...full.turns.slice(0, step.step), { assistant: last, observations: [] }],
    },
    last,
  };
}

const inStage = (events: readonly CompressionEvent[], kind: GuidelineKind, upTo: number) =>
  events.filter(
    (e) =>
      e.step <= upTo && (kind === 'obs' ? e.kind === 'obs' : e.kind !== 'obs' && e.kind !== 'mask'),
  );

export type TraceAnalyzeInput = {
  llm: LlmClient;
  ctx: Omit<CallContext, 'role'>;
  kind: GuidelineKind;
  guideline: string;
  maxRetries: number;
};

/** Utility phase from a replay: why the compressed context made the agent act differently. */
export async function analyzeTraceDivergence(
  input: TraceAnalyzeInput & { trace: Trace; replay: TraceReplay; step: ReplayStep },
): Promise<AnalysisRecord<UtilityAnalysis>> {
  const full = traceTrajectory(input.trace);
  const { trajectory } = counterfactualTrajectory(full, input.step);
  const events = inStage(input.replay.events, input.kind, input.step.step);
  const source: AnalysisSource = {
    rolloutId: `trace:${input.trace.id}`,
    fullRolloutId: null,
    split: 'train',
    kind: 'failure',
  };
  const vars = {
    task: full.task,
    kind: input.kind,
    guideline: input.guideline,
    trace: input.trace.id,
    step: String(input.step.step),
    recorded_action: actionText(input.step.recorded),
    replayed_action: actionText(input.step.replayed),
    lost_probes:
      input.step.lost.length === 0
        ? '(none)'
        : input.step.lost.map((p) => `- ${p.value} (first seen at message ${p.seenAt})`).join('\n'),
    full_trajectory: renderTrajectory(full, [], { maxObservationChars: MAX_OBSERVATION_CHARS }),
    compressed_trajectory: renderTrajectory(trajectory, events, {
      maxObservationChars: MAX_OBSERVATION_CHARS,
    }),
  };
  const taskId = input.trace.taskId ?? input.trace.id;
  const answer = await askJson(
    input.llm,
    { ...input.ctx, role: 'analyzer', taskId },
    [
      { role: 'system', content: renderPrompt('analyzer-trace-ut.system.txt', vars) },
      { role: 'user', content: renderPrompt('analyzer-trace-ut.user.txt', vars) },
    ],
    UTILITY_ANALYSIS_FORMAT,
    UtilityAnalysisSchema,
    input.maxRetries,
  );
  return answer.ok
    ? { taskId, source, ok: true, analysis: answer.value, callIds: answer.callIds }
    : { taskId, source, ok: false, reason: answer.reason, callIds: answer.callIds };
}

/**
 * Compression phase from a replay: a conversation whose every compressed step agreed and kept
 * its probes; what the compressor kept that no later step used is the evidence (the same
 * analysis as an environment optimize's, on the recorded trajectory and the replay's events).
 */
export function analyzeTraceAgreement(
  input: TraceAnalyzeInput & { trace: Trace; replay: TraceReplay },
) {
  const full = traceTrajectory(input.trace);
  return analyzeSuccessfulRun({
    ...input,
    taskId: input.trace.taskId ?? input.trace.id,
    source: {
      rolloutId: `trace:${input.trace.id}`,
      fullRolloutId: null,
      split: 'train',
      kind: 'success',
    },
    trajectory: full,
    events: inStage(input.replay.events, input.kind, full.turns.length),
  });
}

import type { AgentEnvironment } from './environment.js';
import type { Evaluation, CompressionEvent, StepRecord, Trajectory } from '../domain/index.js';
import { ConfigSchema } from '../config/index.js';
import { ContextLengthError, InterruptedError } from '../errors.js';
import { cutReasonText, promptTexts } from '../llm/index.js';
import type {
  TokenCounter,
  AssistantMessage,
  CallContext,
  ChatMessage,
  ChatResult,
  LlmClient,
} from '../llm/index.js';
import { renderPrompt } from '../prompts/index.js';
import { defaultTokenCounter } from './context/messages.js';
import type { ContextStrategy } from './context/strategy.js';
import { pairObservations } from './observations.js';

export type RunEpisodeOptions = {
  episode: AgentEnvironment;
  /** A fresh strategy for this rollout (createStrategy). */
  strategy: ContextStrategy;
  llm: LlmClient;
  /** runId, rolloutId, taskId of the agent calls; role and step are set per call. */
  callCtx: Omit<CallContext, 'role'>;
  /** @default agent.max_steps' default in src/config/schema.ts */
  maxSteps?: number;
  /**
   * Consecutive answers without a tool call that get a corrective observation; one more stops
   * the rollout with `stopReason: 'error'`.
   * @default 2
   */
  maxOutputRetries?: number;
  /** @default the shared o200k counter of src/llm/tokenizer.ts */
  tokens?: TokenCounter;
  /** Checked before every step; an aborted signal throws InterruptedError. */
  signal?: AbortSignal;
  /** Called after each step with the events that shaped its prompt (to commit or show progress). */
  onStep?: (step: StepRecord, events: CompressionEvent[]) => void | Promise<void>;
};

export type StopReason = 'completed' | 'max_steps' | 'error';

export type EpisodeResult = {
  /** The full, never-compressed trajectory. */
  trajectory: Trajectory;
  steps: StepRecord[];
  events: CompressionEvent[];
  evaluation: Evaluation;
  stopReason: StopReason;
  /** Why the rollout stopped with `error`. */
  error?: string;
};

/**
 * One rollout: at every step the strategy builds the prompt from the full trajectory, the agent
 * model answers with a tool call, the episode executes it, and the turn is appended. Stops when
 * the episode says done, at `maxSteps`, or on an agent-side failure (`error`): a context-length
 * error that reactive compression could not cure (seed 002: compress, then retry the step once),
 * or too many answers in a row without a tool call. The episode is evaluated in every case.
 *
 * Provider errors other than context length, InterruptedError and BudgetExceededError propagate:
 * they are not the agent's failure, and the rollout is redone on resume. The caller owns the
 * episode (starts and closes it).
 */
export async function runEpisode(opts: RunEpisodeOptions): Promise<EpisodeResult> {
  const { episode } = opts;
  const maxSteps = opts.maxSteps ?? ConfigSchema.shape.agent.parse(undefined).max_steps;
  const run: EpisodeRun = {
    opts,
    tokens: opts.tokens ?? defaultTokenCounter,
    usesTools: episode.tools.length > 0,
    trajectory: { system: episode.systemPrompt, task: episode.firstUserMessage, turns: [] },
    steps: [],
    events: [],
    stopReason: 'max_steps',
    error: undefined,
    malformedInARow: 0,
  };

  // A counter that asks a server fetches what the strategy will count before it counts it
  // (server-tokenizer.ts says why): the heads and tools now, each turn as it is appended, each
  // view before it is measured.
  await prepare(run, [
    { role: 'system', content: run.trajectory.system },
    { role: 'user', content: run.trajectory.task },
  ]);
  // Whether the event loop went round since the step began (set by an immediate scheduled then).
  let turned = false;
  for (let step = 0; step < maxSteps; step++) {
    // With a fast (simulated or cached) model a whole run can be one chain of microtasks that
    // never lets the event loop poll: Ctrl-C and progress-bar timers would wait for the end. So a
    // step that ran without the loop going round yields first. A step that waited on the network
    // has let the loop go round already; yielding again would queue its next request behind
    // every answer that arrived meanwhile (2% of throughput at 64 calls in flight, issue #16).
    if (!turned) await new Promise((resolve) => setImmediate(resolve));
    turned = false;
    setImmediate(() => (turned = true));
    if (opts.signal?.aborted) throw new InterruptedError(`interrupted before step ${step}`);
    const stepEvents: CompressionEvent[] = [];
    const sent = await prompted(run, step, stepEvents);
    run.events.push(...stepEvents);
    if (!sent) break;
    const done = await takeStep(run, step, sent, stepEvents);
    if (run.error !== undefined) break;
    if (done) {
      run.stopReason = 'completed';
      break;
    }
  }

  const evaluation = await episode.evaluate();
  const { trajectory, steps, events, stopReason, error } = run;
  return error === undefined
    ? { trajectory, steps, events, evaluation, stopReason }
    : { trajectory, steps, events, evaluation, stopReason, error };
}

/** A rollout in progress: what runEpisode's steps read and update. */
type EpisodeRun = {
  opts: RunEpisodeOptions;
  tokens: TokenCounter;
  usesTools: boolean;
  trajectory: Trajectory;
  steps: StepRecord[];
  events: CompressionEvent[];
  stopReason: StopReason;
  error: string | undefined;
  malformedInARow: number;
};

type Sent = {
  prompt: ChatMessage[];
  promptTokens: number;
  result: ChatResult;
  /** The prompt was sent again after a reactive compression (seed 002). */
  reactive: boolean;
};

/** Builds the view and asks the agent; events are collected even if the call then fails. */
async function ask(run: EpisodeRun, step: number, stepEvents: CompressionEvent[]) {
  const { strategy, llm, episode } = run.opts;
  const view = await strategy.view(run.trajectory, step);
  stepEvents.push(...view.events);
  const prompt = view.messages;
  await prepare(run, prompt);
  const promptTokens = run.tokens.countMessageTokens(prompt, episode.tools);
  const result = await llm.chat(
    run.usesTools ? { messages: prompt, tools: episode.tools } : { messages: prompt },
    { ...run.opts.callCtx, role: 'agent', step },
  );
  return { prompt, promptTokens, result };
}

/**
 * The step's prompt sent and answered. A context-length error gets one reactive compression and
 * a retry (seed 002); if that overflows too (a compressor that itself overflows counts as the
 * same failure), the rollout stops with `error` and null is returned.
 */
async function prompted(
  run: EpisodeRun,
  step: number,
  stepEvents: CompressionEvent[],
): Promise<Sent | null> {
  try {
    return { ...(await ask(run, step, stepEvents)), reactive: false };
  } catch (first) {
    if (!(first instanceof ContextLengthError)) throw first;
  }
  try {
    stepEvents.push(...(await run.opts.strategy.compressNow(run.trajectory, step)));
    return { ...(await ask(run, step, stepEvents)), reactive: true };
  } catch (second) {
    if (!(second instanceof ContextLengthError)) throw second;
    run.stopReason = 'error';
    run.error = `step ${step}: the prompt is still too long for the model after reactive compression (${second.message})`;
    return null;
  }
}

/**
 * Acts on the agent's answer (or corrects an answer without a tool call), appends the turn and
 * records the step. Returns whether the episode says it is done.
 */
async function takeStep(
  run: EpisodeRun,
  step: number,
  sent: Sent,
  stepEvents: CompressionEvent[],
): Promise<boolean> {
  const assistant = normalizeAssistant(sent.result.message);
  const toolCall = assistant.tool_calls?.[0] ?? null;
  // A cut answer (finish_reason length/content_filter) is malformed even with a tool call: its
  // arguments may be half of what the model meant, so it is never run.
  const cut = sent.result.finishReason;
  const malformed = (run.usesTools && toolCall === null) || cut !== undefined;
  let observations: ChatMessage[] = [];
  let done = false;
  // What enters the history: the benchmark may keep less than the model said (AppWorld cuts
  // a message after the code block it ran). The step record keeps the raw answer.
  let kept = assistant;
  if (malformed) {
    run.malformedInARow++;
    // Tool calls of a cut answer stay out of the history: a call without its result is invalid.
    if (cut !== undefined) kept = { role: 'assistant', content: assistant.content ?? null };
    if (run.malformedInARow <= (run.opts.maxOutputRetries ?? 2)) {
      const content =
        cut !== undefined
          ? renderPrompt('agent-cut-off.user.txt', { reason: cutReasonText(cut) })
          : renderPrompt('agent-no-tool-call.user.txt', {});
      observations = [{ role: 'user', content }];
    } else {
      run.stopReason = 'error';
      run.error =
        cut !== undefined
          ? `step ${step}: ${cutReasonText(cut)}, ${run.malformedInARow} times in a row`
          : `step ${step}: the agent answered without a tool call ${run.malformedInARow} times in a row`;
    }
  } else {
    run.malformedInARow = 0;
    const act = await run.opts.episode.act(assistant);
    kept = act.assistant ?? assistant;
    observations = pairObservations(kept, act.messages);
    done = act.done;
    if (act.error !== undefined) {
      run.stopReason = 'error';
      run.error = `step ${step}: ${act.error}`;
    }
  }
  run.trajectory.turns.push({ assistant: kept, observations });
  await prepare(run, [kept, ...observations]);
  const record: StepRecord = {
    index: step,
    prompt: sent.prompt,
    promptTokens: sent.promptTokens,
    assistant,
    toolCall,
    observations,
    observationTokens: observations.reduce(
      (n, m) => n + run.tokens.countTokens(m.content ?? ''),
      0,
    ),
    latencyMs: sent.result.latencyMs,
    callId: sent.result.callId,
    reactive: sent.reactive,
    malformed,
  };
  run.steps.push(record);
  await run.opts.onStep?.(record, stepEvents);
  return done;
}

/** The counts of these messages (with the episode's tools) fetched, for a counter that asks. */
async function prepare(run: EpisodeRun, messages: readonly ChatMessage[]): Promise<void> {
  if (run.tokens.prepare) await run.tokens.prepare(promptTexts(messages, run.opts.episode.tools));
}

/**
 * An empty `tool_calls` array means no call; drop it, and give a call-less message text, so the
 * message replays as valid chat input.
 */
function normalizeAssistant(message: AssistantMessage): AssistantMessage {
  if (message.tool_calls === undefined || message.tool_calls.length === 0) {
    return { role: 'assistant', content: message.content ?? '' };
  }
  return message;
}

import type { AgentEnvironment } from './environment.js';
import type { Evaluation } from '../domain/evaluation.js';
import { ContextLengthError, InterruptedError } from '../errors.js';
import type { TokenCounter } from '../llm/tokenizer.js';
import type {
  AssistantMessage,
  CallContext,
  ChatMessage,
  ChatResult,
  LlmClient,
} from '../llm/types.js';
import { renderPrompt } from '../prompts/template.js';
import { defaultTokenCounter } from './context/messages.js';
import type { ContextStrategy } from './context/strategy.js';
import type { CompressionEvent } from '../domain/compression-event.js';
import { pairObservations } from './observations.js';
import type { StepRecord } from '../domain/step.js';
import type { Trajectory } from '../domain/trajectory.js';

export type RunEpisodeOptions = {
  episode: AgentEnvironment;
  /** A fresh strategy for this rollout (createStrategy). */
  strategy: ContextStrategy;
  llm: LlmClient;
  /** runId, rolloutId, taskId of the agent calls; role and step are set per call. */
  callCtx: Omit<CallContext, 'role'>;
  /** @default 50 */
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
  const { episode, strategy, llm } = opts;
  const maxSteps = opts.maxSteps ?? 50;
  const maxOutputRetries = opts.maxOutputRetries ?? 2;
  const tokens = opts.tokens ?? defaultTokenCounter;
  const usesTools = episode.tools.length > 0;

  const trajectory: Trajectory = {
    system: episode.systemPrompt,
    task: episode.firstUserMessage,
    turns: [],
  };
  const steps: StepRecord[] = [];
  const events: CompressionEvent[] = [];
  let stopReason: StopReason = 'max_steps';
  let error: string | undefined;
  let malformedInARow = 0;

  /** Builds the view and asks the agent; events are collected even if the call then fails. */
  async function ask(step: number, stepEvents: CompressionEvent[]) {
    const view = await strategy.view(trajectory, step);
    stepEvents.push(...view.events);
    const prompt = view.messages;
    const promptTokens = tokens.countMessageTokens(prompt, episode.tools);
    const result = await llm.chat(
      usesTools ? { messages: prompt, tools: episode.tools } : { messages: prompt },
      { ...opts.callCtx, role: 'agent', step },
    );
    return { prompt, promptTokens, result };
  }

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
    let reactive = false;
    let sent: { prompt: ChatMessage[]; promptTokens: number; result: ChatResult };
    try {
      sent = await ask(step, stepEvents);
    } catch (first) {
      if (!(first instanceof ContextLengthError)) throw first;
      reactive = true;
      try {
        // A compressor that itself overflows counts as the same failure.
        stepEvents.push(...(await strategy.compressNow(trajectory, step)));
        sent = await ask(step, stepEvents);
      } catch (second) {
        if (!(second instanceof ContextLengthError)) throw second;
        events.push(...stepEvents);
        stopReason = 'error';
        error = `step ${step}: the prompt is still too long for the model after reactive compression (${second.message})`;
        break;
      }
    }
    events.push(...stepEvents);

    const assistant = normalizeAssistant(sent.result.message);
    const toolCall = assistant.tool_calls?.[0] ?? null;
    const malformed = usesTools && toolCall === null;
    let observations: ChatMessage[] = [];
    let done = false;
    // What enters the history: the benchmark may keep less than the model said (AppWorld cuts
    // a message after the code block it ran). The step record keeps the raw answer.
    let kept = assistant;
    if (malformed) {
      malformedInARow++;
      if (malformedInARow <= maxOutputRetries) {
        observations = [{ role: 'user', content: renderPrompt('agent-no-tool-call.user.txt', {}) }];
      } else {
        stopReason = 'error';
        error = `step ${step}: the agent answered without a tool call ${malformedInARow} times in a row`;
      }
    } else {
      malformedInARow = 0;
      const act = await episode.act(assistant);
      kept = act.assistant ?? assistant;
      observations = pairObservations(kept, act.messages);
      done = act.done;
      if (act.error !== undefined) {
        stopReason = 'error';
        error = `step ${step}: ${act.error}`;
      }
    }

    trajectory.turns.push({ assistant: kept, observations });
    const record: StepRecord = {
      index: step,
      prompt: sent.prompt,
      promptTokens: sent.promptTokens,
      assistant,
      toolCall,
      observations,
      observationTokens: observations.reduce((n, m) => n + tokens.countTokens(m.content ?? ''), 0),
      latencyMs: sent.result.latencyMs,
      callId: sent.result.callId,
      reactive,
      malformed,
    };
    steps.push(record);
    await opts.onStep?.(record, stepEvents);

    if (error !== undefined) break;
    if (done) {
      stopReason = 'completed';
      break;
    }
  }

  const evaluation = await episode.evaluate();
  return error === undefined
    ? { trajectory, steps, events, evaluation, stopReason }
    : { trajectory, steps, events, evaluation, stopReason, error };
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

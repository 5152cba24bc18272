import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { GuidelinePair } from '../../domain/index.js';
import type { Price } from '../../config/index.js';
import type {
  CompressionEvent,
  Evaluation,
  AssistantMessage,
  ChatMessage,
  StepRecord,
} from '../../domain/index.js';
import { costUsd, tokenCounterFor, type LlmClient, type TokenCounter } from '../../llm/index.js';
import { rolloutMetrics } from '../../metrics/index.js';
import type { RunStore } from '../../store/index.js';
import type { CompressionReport } from '../context-compressor.js';
import { contentText, indexTrajectory, type OpenAiMessage } from '../openai-messages.js';
import type { ProxiedExchange } from './exchange.js';
import { recordedAnswer } from './recorded-answer.js';

/** The split proxied traffic is stored under: live traffic, never a benchmark's split. */
export const PROXY_SPLIT = 'proxy';

/** One recorded agent step: the request as it went upstream and the answer. */
type RecordedStep = {
  index: number;
  prompt: ChatMessage[];
  promptTokens: number;
  assistant: AssistantMessage | null;
  callId: number;
  error: string | null;
};

/** One conversation seen through the proxy, until it is stored as a rollout. */
type Session = {
  id: string;
  taskId: string;
  startedAt: Date;
  /** The latest request as the client sent it (uncompressed): the full trajectory so far. */
  original: OpenAiMessage[];
  steps: Map<number, RecordedStep>;
  events: CompressionEvent[];
};

export type ProxyRecorderOptions = {
  store: RunStore;
  runId: string;
  guidelines: GuidelinePair;
  /** Prices for the rollouts' full cost (`prices:` of the config). */
  prices: Record<string, Price>;
  /**
   * What the steps' prompt and observation tokens (peaks) are counted in: the one the proxy's
   * thresholds use. @default o200k
   */
  tokens?: TokenCounter;
  /** @default () => new Date() */
  now?: () => Date;
  /**
   * Conversations kept in memory; past it the oldest is stored as a rollout (a later request of
   * it starts a new one). @default 256
   */
  maxSessions?: number;
};

/**
 * `acon proxy --record`: every conversation through the proxy becomes a rollout of the proxy's
 * run, as acon's own rollouts are stored, so `acon runs show`, `acon rollout show`, the report
 * and `acon export --run RUN --split proxy` read production traffic. A conversation is the
 * requests that share their head (system prompt and task); each request is one agent step: the
 * compressed prompt as it went upstream, the answer (a stream reassembled) as an `agent` call,
 * and the compressions it caused, whose compressor calls are attributed to the conversation.
 * A rollout is stored when the agent answers without a tool call (its run is over; a request
 * that continues the conversation starts the next rollout), and the rest when the proxy stops
 * (Ctrl-C, SIGTERM) or a conversation leaves memory. Nothing is evaluated: a rollout counts as a success when the agent ended with an
 * answer (no tool call) and the upstream answered without an error. Headers are never part of
 * it: the client's key is not stored.
 */
export class ProxyRecorder {
  private readonly conversation = new AsyncLocalStorage<string>();
  private readonly sessions = new Map<string, Session>();
  /** Rollouts stored per conversation key, so a continued conversation gets a new rollout id. */
  private readonly stored = new Map<string, number>();
  private readonly now: () => Date;
  private readonly tokens: TokenCounter;

  constructor(private readonly opts: ProxyRecorderOptions) {
    this.now = opts.now ?? (() => new Date());
    this.tokens = opts.tokens ?? tokenCounterFor('o200k');
  }

  /** The compressors' LLM client, its calls recorded under the conversation being compressed. */
  llm(inner: LlmClient): LlmClient {
    return {
      chat: (req, ctx) => {
        const rolloutId = this.conversation.getStore();
        return inner.chat(req, rolloutId ? { ...ctx, rolloutId } : ctx);
      },
    };
  }

  /** Runs the compression of one request with its compressor calls attributed to its rollout. */
  within<T>(messages: readonly OpenAiMessage[], fn: () => Promise<T>): Promise<T> {
    return this.conversation.run(this.session(messages).id, fn);
  }

  /** Records one proxied chat completion as a step of its conversation. */
  exchange(x: ProxiedExchange): void {
    const session = this.session(x.original);
    session.original = [...x.original];
    const index = indexTrajectory(x.original).trajectory.turns.length;
    const prompt = toChatMessages(x.sent);
    const model = typeof x.body.model === 'string' ? x.body.model : 'unknown';
    const answer = x.status < 400 ? recordedAnswer(x) : null;
    const error = answer ? null : `upstream answered HTTP ${x.status}`;
    const usage = answer?.usage ?? { promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0 };
    const callId = this.opts.store.recordCall({
      ctx: { role: 'agent', runId: this.opts.runId, rolloutId: session.id, step: index },
      provider: 'upstream',
      model,
      requestHash: createHash('sha256').update(JSON.stringify(prompt)).digest('hex'),
      request: { messages: prompt, model },
      response: answer ? { message: answer.message, usage: answer.usage } : null,
      usage,
      // Billed as the upstream reported it: reasoning tokens are output, cached input discounted.
      costUsd: costUsd(usage, this.opts.prices[model]),
      latencyMs: 0,
      cached: false,
      error,
    });
    // A request for a step already recorded (a client's retry) replaces it.
    session.steps.set(index, {
      index,
      prompt,
      promptTokens: this.tokens.countMessageTokens(prompt),
      assistant: answer?.message ?? null,
      callId,
      error,
    });
    session.events = session.events.filter((e) => e.step !== index);
    session.events.push(...events(x.report, index));
    // The agent answered without a tool call: its run is over, store it now. A request that
    // continues the conversation later starts the next rollout.
    if (answer && (answer.message.tool_calls ?? []).length === 0) {
      this.save(conversationKey(x.original));
    }
  }

  /** Stores every conversation still in memory as a rollout. */
  close(): void {
    for (const key of [...this.sessions.keys()]) this.save(key);
  }

  private session(messages: readonly OpenAiMessage[]): Session {
    const key = conversationKey(messages);
    let session = this.sessions.get(key);
    if (!session) {
      const n = this.stored.get(key) ?? 0;
      const id = createHash('sha256')
        .update(`${this.opts.runId}\u0000${key}\u0000${n}`)
        .digest('hex')
        .slice(0, 16);
      session = {
        id,
        taskId: `conversation-${key.slice(0, 8)}${n > 0 ? `-${n + 1}` : ''}`,
        startedAt: this.now(),
        original: [...messages],
        steps: new Map(),
        events: [],
      };
      this.sessions.set(key, session);
      const max = this.opts.maxSessions ?? 256;
      if (this.sessions.size > max) this.save(this.sessions.keys().next().value!);
    }
    return session;
  }

  private save(key: string): void {
    const session = this.sessions.get(key);
    this.sessions.delete(key);
    if (!session || session.steps.size === 0) return;
    this.stored.set(key, (this.stored.get(key) ?? 0) + 1);
    const { store, runId, guidelines } = this.opts;
    const { trajectory } = indexTrajectory(session.original);
    const recorded = [...session.steps.values()].sort((a, b) => a.index - b.index);
    const last = recorded.at(-1)!;
    // The answer to the latest request is the trajectory's last turn (no observation yet).
    if (last.assistant && last.index === trajectory.turns.length) {
      trajectory.turns.push({ assistant: last.assistant, observations: [] });
    }
    const steps: StepRecord[] = recorded.map((s) => {
      const observations = trajectory.turns[s.index]?.observations ?? [];
      const assistant = s.assistant ?? trajectory.turns[s.index]?.assistant;
      return {
        index: s.index,
        prompt: s.prompt,
        promptTokens: s.promptTokens,
        assistant: assistant ?? { role: 'assistant', content: s.error ?? '' },
        toolCall: assistant?.tool_calls?.[0] ?? null,
        observations,
        observationTokens:
          observations.length > 0 ? this.tokens.countMessageTokens(observations) : 0,
        latencyMs: 0,
        callId: s.callId,
        reactive: false,
        malformed: false,
      };
    });
    const finished = last.error === null && (last.assistant?.tool_calls ?? []).length === 0;
    const evaluation: Evaluation = {
      success: finished,
      score: finished ? 1 : 0,
      details: [
        {
          name: 'proxied',
          passed: finished,
          detail: finished
            ? 'not evaluated (live traffic): the agent ended with an answer'
            : `not evaluated (live traffic): ${last.error ?? 'the agent had not answered yet when the proxy stopped'}`,
        },
      ],
    };
    const finishedAt = this.now();
    const metrics = rolloutMetrics({
      success: finished,
      score: evaluation.score,
      stepPromptTokens: steps.map((s) => s.promptTokens),
      systemTokens:
        this.tokens.countMessageTokens([{ role: 'system', content: trajectory.system }]) -
        this.tokens.countMessageTokens([]),
      events: session.events,
      calls: store.callsOfRollout(session.id),
      wallMs: finishedAt.getTime() - session.startedAt.getTime(),
      prices: this.opts.prices,
    });
    store.saveRollout({
      id: session.id,
      runId,
      condition: `acon[${guidelines.obs.id},${guidelines.hist.id}]`,
      taskId: session.taskId,
      split: PROXY_SPLIT,
      strategy: 'acon',
      guidelineObs: guidelines.obs.id,
      guidelineHist: guidelines.hist.id,
      status: finished ? 'completed' : last.error ? 'error' : 'open',
      evaluation,
      metrics,
      trajectory,
      steps,
      events: session.events,
      error: last.error,
      startedAt: session.startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
    });
  }
}

/** The compressions of one request as the step's events. */
function events(report: CompressionReport, step: number): CompressionEvent[] {
  return report.events.map((e) => ({
    kind: e.kind,
    step,
    inputTokens: e.inputTokens,
    outputTokens: e.outputTokens,
    input: e.input,
    output: e.output,
    guidelineId: e.guidelineId,
    callId: null,
    failed: e.failed,
    // rollout show names why a compression failed, as it does for a run's own rollouts.
    ...(e.failureReason !== undefined ? { failureReason: e.failureReason } : {}),
  }));
}

/** Requests of one conversation share their head: the system prompt and the task. */
function conversationKey(messages: readonly OpenAiMessage[]): string {
  const { trajectory } = indexTrajectory(messages);
  return createHash('sha256')
    .update(JSON.stringify([trajectory.system, trajectory.task]))
    .digest('hex');
}

function toChatMessages(messages: OpenAiMessage[]): ChatMessage[] {
  const { trajectory, headEnd } = indexTrajectory(messages);
  const head: ChatMessage[] = messages
    .slice(0, headEnd)
    .map((m) =>
      m.role === 'system' || m.role === 'developer'
        ? { role: 'system', content: contentText(m.content) }
        : { role: 'user', content: contentText(m.content) },
    );
  return [...head, ...trajectory.turns.flatMap((t) => [t.assistant, ...t.observations])];
}

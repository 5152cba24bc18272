import { createHash } from 'node:crypto';
import { createStrategy, defaultContextOptions, type ContextStrategy } from '../agent/index.js';
import type { ChatMessage, CompressionEvent, GuidelinePair, Trajectory } from '../domain/index.js';
import { compressHistory, renderTurns, type CompressorDeps } from '../compress/index.js';
import { promptTexts, tokenCounterFor, type LlmClient, type TokenCounter } from '../llm/index.js';
import { indexTrajectory, type IndexedTrajectory, type OpenAiMessage } from './openai-messages.js';

/** ACON's thresholds (seed 003 defaults). */
export type Thresholds = {
  /** Compress a tool result longer than this many tokens (T_obs). @default 1024 */
  obs?: number;
  /** Fold the history once it is longer than this many tokens (T_hist). @default 4096 */
  hist?: number;
  /** Turns kept verbatim after a fold (k). @default 1 */
  keepLast?: number;
};

/** One compression: what it replaced and by how much, and whether the call cache answered. */
export type RuntimeEvent = Pick<
  CompressionEvent,
  | 'kind'
  | 'inputTokens'
  | 'outputTokens'
  | 'guidelineId'
  | 'failed'
  | 'failureReason'
  | 'input'
  | 'output'
> & {
  /** Answered from the cache: this prefix was compressed before, no model call was made. */
  cached: boolean;
};

/** What one `compress` call did; given to `onReport`. */
export type CompressionReport = {
  /** Compressions this call caused (cached ones included). */
  events: RuntimeEvent[];
  /** Prompt tokens of the messages given, counted in `tokenizer`. */
  tokensBefore: number;
  /** Prompt tokens of the messages returned. */
  tokensAfter: number;
  /** The compressor failed: the messages were returned uncompressed. */
  error?: Error;
  /** SIMULATED: the compressor is acon's offline `sim`, not a model (`model: { provider: 'sim' }`). */
  simulated: boolean;
  /** The encoding thresholds and these counts are in (`o200k`, `cl100k`, `hf:PATH`, `server`). */
  tokenizer: string;
};

/**
 * What a compression does to a message list, by input position: the adapters apply it to their
 * own message formats.
 */
export type CompressionPlan = {
  /** Messages [0, headEnd) (system prompt, task) stay verbatim. */
  headEnd: number;
  /** Messages [headEnd, firstKept) are folded into `summary`; the rest are kept. */
  firstKept: number;
  /** The text of the user message that replaces the folded turns; null when nothing is folded. */
  summary: string | null;
  /** New text of kept messages, by input index (compressed tool results). */
  replaced: Map<number, string>;
  report: CompressionReport;
};

export type ContextCompressorDeps = {
  llm: LlmClient;
  guidelines: GuidelinePair;
  thresholds?: Thresholds;
  /** Called after every `compress`/`plan` with what it did. */
  onReport?: (report: CompressionReport) => void;
  /**
   * `'passthrough'` returns the messages uncompressed when the compressor fails (and reports
   * the error); `'throw'` rejects. @default 'passthrough'
   */
  onError?: 'passthrough' | 'throw';
  /** The compressor is acon's simulation; every report says so. @default false */
  simulated?: boolean;
  /** Run id compressor calls are recorded under (when the LLM client records). @default 'runtime' */
  runId?: string;
  /** Conversations whose compression state is kept in memory. @default 256 */
  maxSessions?: number;
  /** Bounded retries of an unusable compressor answer. @default 2 */
  maxOutputRetries?: number;
  /**
   * What T_obs, T_hist and the reports' token counts are counted with: the agent model's
   * tokenizer, since it is the agent's context the thresholds keep small. @default o200k
   */
  tokens?: TokenCounter;
};

/** Applies ACON to OpenAI-style message lists. Stateless from the caller's side. */
export interface ContextCompressor {
  /**
   * The messages with ACON applied: tool results over T_obs compressed, the history folded once
   * over T_hist. The same message objects come back where nothing changed.
   */
  compress<M extends OpenAiMessage>(messages: readonly M[]): Promise<(M | OpenAiMessage)[]>;
  /** What `compress` would do, by input position (for other message formats). */
  plan(messages: readonly OpenAiMessage[], opts?: PlanOptions): Promise<CompressionPlan>;
  /**
   * ACON's history compressor alone, for an adapter that decides folds by its framework's rule
   * (acon/langchain's `trigger`/`keep`): every turn of `messages` and `previousSummary` folded
   * into one summary with the history guideline. `summary` is null when the compressor failed.
   */
  fold(messages: readonly OpenAiMessage[], previousSummary: string | null): Promise<FoldResult>;
}

export type PlanOptions = {
  /** Fold the history over T_hist; `false` compresses tool results only. @default true */
  history?: boolean;
};

export type FoldResult = { summary: string | null; report: CompressionReport };

type Session = { strategy: ContextStrategy; turns: number };

/**
 * The ACON context strategy (src/agent/context/acon.ts) run over a caller's message lists.
 *
 * The caller sends the whole conversation every time. Its compressed view is the one acon's own
 * agent loop would have shown at that step: the strategy is replayed over every prefix of the
 * turns, so history folds happen where they would have happened step by step, and a message list
 * always compresses to the same result. Replays are cheap: the strategy of the longest prefix
 * seen before is taken from memory (keyed by a content hash of the prefix), and every compressor
 * request is answered from the call cache (keyed by a hash of the request) when it was made
 * before, so no prefix is compressed twice.
 */
export function createContextCompressorWith(deps: ContextCompressorDeps): ContextCompressor {
  const base = defaultContextOptions();
  const options = {
    ...base,
    t_obs: deps.thresholds?.obs ?? base.t_obs,
    t_hist: deps.thresholds?.hist ?? base.t_hist,
    keep_last: deps.thresholds?.keepLast ?? base.keep_last,
    guidelines: deps.guidelines,
  };
  const tokens = deps.tokens ?? tokenCounterFor('o200k');
  const tokenizer = tokens.tokenizer ?? 'o200k';
  const cachedCalls = new Set<number>();
  const llm: LlmClient = {
    async chat(req, ctx) {
      const result = await deps.llm.chat(req, ctx);
      if (result.cached) cachedCalls.add(result.callId);
      return result;
    },
  };
  const strategyDeps = {
    llm,
    callCtx: { runId: deps.runId ?? 'runtime' },
    maxOutputRetries: deps.maxOutputRetries ?? 2,
    tokens,
  };
  const sessions = new ReplaySessions(deps.maxSessions ?? 256, () =>
    createStrategy('acon', options, strategyDeps),
  );
  const obsSessions = new ReplaySessions(deps.maxSessions ?? 256, () =>
    createStrategy('acon', { ...options, t_hist: Number.POSITIVE_INFINITY }, strategyDeps),
  );

  async function plan(
    messages: readonly OpenAiMessage[],
    opts: PlanOptions = {},
  ): Promise<CompressionPlan> {
    const indexed = indexTrajectory(messages);
    const full = fullMessages(indexed.trajectory);
    let tokensBefore = 0;
    try {
      // A counter that asks a server fetches the counts first (server-tokenizer.ts says why).
      await tokens.prepare?.(promptTexts(full));
      tokensBefore = tokens.countMessageTokens(full);
      const replay = opts.history === false ? obsSessions : sessions;
      const { messages: shown, events } = await replay.view(indexed);
      const out = planFromView(indexed, shown, messages.length);
      const report: CompressionReport = {
        events: events.map((e) => reportedEvent(e, cachedCalls)),
        tokensBefore,
        tokensAfter: tokens.countMessageTokens(shown),
        simulated: deps.simulated ?? false,
        tokenizer,
      };
      deps.onReport?.(report);
      return { ...out, report };
    } catch (err) {
      if (deps.onError === 'throw') throw err;
      const error = err instanceof Error ? err : new Error(String(err));
      // The server did not count them: counted here, and `estimated` says so (server-tokenizer.ts).
      if (tokensBefore === 0) tokensBefore = tokens.countMessageTokens(full);
      const report = {
        events: [],
        tokensBefore,
        tokensAfter: tokensBefore,
        error,
        simulated: deps.simulated ?? false,
        tokenizer,
      };
      deps.onReport?.(report);
      return unchangedPlan(indexed.headEnd, report);
    }
  }

  return {
    plan,
    fold: (messages, previous) => foldHistory(deps, strategyDeps, cachedCalls, messages, previous),
    async compress<M extends OpenAiMessage>(messages: readonly M[]) {
      return applyPlan(messages, await plan(messages));
    },
  };
}

/** The plan that keeps every message: what a failed compression returns. */
function unchangedPlan(headEnd: number, report: CompressionReport): CompressionPlan {
  return { headEnd, firstKept: headEnd, summary: null, replaced: new Map(), report };
}

/** ContextCompressor.fold: ACON's history compressor on every turn of `messages`. */
async function foldHistory(
  deps: ContextCompressorDeps,
  strategyDeps: CompressorDeps,
  cachedCalls: Set<number>,
  messages: readonly OpenAiMessage[],
  previousSummary: string | null,
): Promise<FoldResult> {
  const { tokens } = strategyDeps;
  const { trajectory } = indexTrajectory(messages);
  const full = fullMessages(trajectory);
  await tokens.prepare?.(promptTexts(full));
  const tokensBefore = tokens.countMessageTokens(full);
  const outcome = await compressHistory(
    {
      task: trajectory.task,
      previousSummary,
      history: renderTurns(trajectory.turns, 1),
      guideline: deps.guidelines.hist,
      step: trajectory.turns.length,
    },
    strategyDeps,
  );
  const report: CompressionReport = {
    events: [reportedEvent(outcome.event, cachedCalls)],
    tokensBefore,
    tokensAfter: outcome.ok ? tokens.countTokens(outcome.text) : tokensBefore,
    simulated: deps.simulated ?? false,
    tokenizer: tokens.tokenizer ?? 'o200k',
  };
  deps.onReport?.(report);
  if (!outcome.ok && deps.onError === 'throw') {
    throw new Error(`acon: the history compressor failed: ${outcome.event.failureReason ?? ''}`);
  }
  return { summary: outcome.ok ? outcome.text : null, report };
}

function reportedEvent(e: CompressionEvent, cachedCalls: Set<number>) {
  return {
    kind: e.kind,
    inputTokens: e.inputTokens,
    outputTokens: e.outputTokens,
    guidelineId: e.guidelineId,
    failed: e.failed,
    ...(e.failureReason !== undefined ? { failureReason: e.failureReason } : {}),
    input: e.input,
    output: e.output,
    cached: e.callId !== null && cachedCalls.has(e.callId),
  };
}

/**
 * Strategies of the conversations seen, by a content hash of their turns (least recently used
 * dropped past `max`), so a longer conversation replays only the turns it added.
 */
class ReplaySessions {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly max: number,
    private readonly newStrategy: () => ContextStrategy,
  ) {}

  async view(indexed: IndexedTrajectory) {
    const { trajectory } = indexed;
    const hashes = prefixHashes(trajectory);
    const session = this.take(hashes) ?? { strategy: this.newStrategy(), turns: -1 };
    const events: CompressionEvent[] = [];
    let messages: ChatMessage[] = [];
    const n = trajectory.turns.length;
    // Every step the agent would have taken: view(turns[0..t)) for t up to n.
    // A session that has seen exactly these turns views them once more (no new compression).
    const start = session.turns === n ? n : session.turns + 1;
    for (let t = start; t <= n; t++) {
      const prefix = t === n ? trajectory : { ...trajectory, turns: trajectory.turns.slice(0, t) };
      const result = await session.strategy.view(prefix, t);
      events.push(...result.events);
      messages = result.messages;
    }
    session.turns = n;
    this.remember(hashes[n]!, session);
    return { messages, events };
  }

  /** The session of the longest prefix seen, taken out while it runs: a concurrent call for the same conversation replays its own. */
  private take(hashes: string[]): Session | undefined {
    for (let i = hashes.length - 1; i >= 0; i--) {
      const hit = this.sessions.get(hashes[i]!);
      if (hit) {
        this.sessions.delete(hashes[i]!);
        return hit;
      }
    }
    return undefined;
  }

  private remember(key: string, session: Session): void {
    this.sessions.delete(key);
    this.sessions.set(key, session);
    if (this.sessions.size > this.max) this.sessions.delete(this.sessions.keys().next().value!);
  }
}

/** The plan that turns `messages` into the strategy's view `shown`. */
function planFromView(
  indexed: IndexedTrajectory,
  shown: readonly ChatMessage[],
  length: number,
): Omit<CompressionPlan, 'report'> {
  const { trajectory, headEnd, turnStarts, observationIndex } = indexed;
  // A view is [system, task, summary?, ...visible turns]; turns keep their assistant objects.
  const rest = shown.slice(2);
  const first = rest.findIndex((m) => m.role === 'assistant');
  const folded =
    first === -1
      ? trajectory.turns.length
      : trajectory.turns.findIndex((t) => t.assistant === rest[first]);
  if (folded === -1) throw new Error('acon runtime: the view lost track of the turns it shows');
  const summaryMessage = rest.slice(0, first === -1 ? rest.length : first)[0];
  const replaced = new Map<number, string>();
  let at = first === -1 ? rest.length : first;
  for (let t = folded; t < trajectory.turns.length; t++) {
    at++; // the assistant message
    for (const [j, original] of trajectory.turns[t]!.observations.entries()) {
      const visible = rest[at++];
      if (visible !== undefined && visible.content !== original.content) {
        replaced.set(observationIndex[t]![j]!, visible.content ?? '');
      }
    }
  }
  return {
    headEnd,
    firstKept: folded < turnStarts.length ? turnStarts[folded]! : length,
    summary: summaryMessage === undefined ? null : (summaryMessage.content ?? ''),
    replaced,
  };
}

/** The plan applied to OpenAI-style messages; untouched messages are the same objects. */
export function applyPlan<M extends OpenAiMessage>(
  messages: readonly M[],
  plan: Omit<CompressionPlan, 'report'>,
): (M | OpenAiMessage)[] {
  const out: (M | OpenAiMessage)[] = messages.slice(0, plan.headEnd);
  if (plan.summary !== null) out.push({ role: 'user', content: plan.summary });
  for (let i = plan.firstKept; i < messages.length; i++) {
    const m = messages[i]!;
    const text = plan.replaced.get(i);
    out.push(text === undefined ? m : withText(m, text));
  }
  return out;
}

/** The message with its text replaced; parts that are not text (images, files) are kept. */
function withText<M extends OpenAiMessage>(m: M, text: string): M {
  if (!Array.isArray(m.content)) return { ...m, content: text };
  const other = (m.content as { type: string }[]).filter((p) => p.type !== 'text');
  return { ...m, content: [{ type: 'text', text }, ...other] } as M;
}

function fullMessages(trajectory: Trajectory): ChatMessage[] {
  const out: ChatMessage[] = [
    { role: 'system', content: trajectory.system },
    { role: 'user', content: trajectory.task },
  ];
  for (const turn of trajectory.turns) out.push(turn.assistant, ...turn.observations);
  return out;
}

/** Content hashes of the head plus each prefix of turns: hashes[t] covers turns[0..t). */
function prefixHashes(trajectory: Trajectory): string[] {
  let h = sha256(JSON.stringify([trajectory.system, trajectory.task]));
  const out = [h];
  for (const turn of trajectory.turns) {
    h = sha256(h + JSON.stringify(turn));
    out.push(h);
  }
  return out;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

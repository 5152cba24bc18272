import {
  MemorySession,
  RequestUsage,
  type AgentInputItem,
  type Model,
  type OpenAIResponsesCompactionArgs,
  type OpenAIResponsesCompactionAwareSession,
  type OpenAIResponsesCompactionResult,
  type Session,
} from '@openai/agents';
import type { ChatMessage, Trajectory } from '../../domain/index.js';
import { countMessageTokens } from '../../llm/index.js';
import type { CompressionReport, ContextCompressor } from '../context-compressor.js';
import { indexTrajectory } from '../openai-messages.js';
import { rebuild } from '../rebuild.js';
import { resolveCompressor, type AdapterCompressor } from './compressor-input.js';
import { agentsModelCompressor, isAgentsModel } from './openai-agents-compressor.js';
import { replaceText, toOpenAi } from './openai-agents-items.js';

/** Where the session marks its summary item: in `providerData`, stripped before a model sees it. */
const SUMMARY_MARK = 'acon_summary';

export type AconSessionOptions = {
  /**
   * The store the compacted history lives in (any Agents SDK `Session`: a database-backed one of
   * your own, …). It holds what the next run will read: compacted items, not the raw ones.
   * @default new MemorySession()
   */
  session?: Session;
  /**
   * Fold the stored history once it is longer than this many tokens (o200k estimate; ACON's
   * T_hist). @default 4096
   */
  historyTokens?: number;
  /** Turns (an assistant item with the results after it) kept verbatim by a fold (ACON's k). @default 1 */
  keepTurns?: number;
  /** Told after every compaction that changed the stored history. */
  onCompaction?: (compaction: SessionCompaction) => void;
};

/** What one `runCompaction` did to the stored history. */
export type SessionCompaction = {
  itemsBefore: number;
  itemsAfter: number;
  /** The observation compressor's report (tool results over T_obs). */
  observations: CompressionReport;
  /** The history compressor's report, when the history was folded. */
  history?: CompressionReport;
};

/**
 * A `Session` that stores compacted items, the Agents SDK's own place for compaction (what
 * `OpenAIResponsesCompactionSession` does with `responses.compact`). The runner reads a session
 * once at the start of a run and calls `runCompaction` after it stores the run's items, once a
 * run unless a tool approval interrupts it (@openai/agents-core 0.20,
 * runner/sessionPersistence.js `persistRunItemsToSession`); this session then rewrites the stored
 * history: function results over T_obs replaced by the observation compressor's, and once the
 * history is over `historyTokens`, every turn but the last `keepTurns` folded by the history
 * compressor into one user message. That message is marked, so the next fold hands its text to
 * the history compressor as the previous summary and replaces it: the store holds one summary,
 * however many runs it has seen. The first request (the task) and the latest run's request stay
 * verbatim, and a function call is never separated from its result.
 *
 * The run in progress keeps its own items, so compaction shows from the next run on; for the
 * model calls inside one long run, add `aconInputFilter` as well.
 *
 * @example
 * import { run } from '@openai/agents';
 * import { aconSession } from 'acon/openai-agents';
 * const session = aconSession({ guidelines, model: compressorModel });
 * await run(agent, 'List every record.', { session });
 * await run(agent, 'Now only the open ones.', { session });
 */
export function aconSession(
  input: AdapterCompressor<Model>,
  opts: AconSessionOptions = {},
): AconSession {
  const compressor = resolveCompressor(input, isAgentsModel, (m) => agentsModelCompressor(m));
  return new AconSession(compressor, opts);
}

export class AconSession implements OpenAIResponsesCompactionAwareSession {
  private readonly store: Session;
  private readonly historyTokens: number;
  private readonly keepTurns: number;

  constructor(
    private readonly compressor: ContextCompressor,
    private readonly opts: AconSessionOptions = {},
  ) {
    this.store = opts.session ?? new MemorySession();
    this.historyTokens = opts.historyTokens ?? 4096;
    this.keepTurns = Math.max(1, opts.keepTurns ?? 1);
  }

  getSessionId(): Promise<string> {
    return this.store.getSessionId();
  }

  getItems(limit?: number): Promise<AgentInputItem[]> {
    return this.store.getItems(limit);
  }

  /** The summary's mark is acon's, not a provider's: a model request must not carry it. */
  prepareHistoryItemForModelInput(item: AgentInputItem): AgentInputItem {
    if (!isSummary(item)) return item;
    const { providerData, ...rest } = item as AgentInputItem & {
      providerData?: Record<string, unknown>;
    };
    const { [SUMMARY_MARK]: _mark, ...other } = providerData ?? {};
    return (
      Object.keys(other).length > 0 ? { ...rest, providerData: other } : rest
    ) as AgentInputItem;
  }

  addItems(items: AgentInputItem[]): Promise<void> {
    return this.store.addItems(items);
  }

  popItem(): Promise<AgentInputItem | undefined> {
    return this.store.popItem();
  }

  clearSession(): Promise<void> {
    return this.store.clearSession();
  }

  /**
   * Compacts the stored history (called by the runner after each stored turn; call it yourself
   * with `{ force: true }` to fold whatever the threshold says). Returns null when nothing changed.
   */
  async runCompaction(
    args?: OpenAIResponsesCompactionArgs,
  ): Promise<OpenAIResponsesCompactionResult | null> {
    const stored = await this.store.getItems();
    const at = stored.findIndex(isSummary);
    const previous = at === -1 ? null : summaryText(stored[at]!);
    const items = at === -1 ? stored : [...stored.slice(0, at), ...stored.slice(at + 1)];

    // Tool results first, as ACON compresses an observation when it arrives.
    const mapped = toOpenAi(items);
    const plan = await this.compressor.plan(mapped.messages, { history: false });
    const compressed = rebuild<AgentInputItem>(items, mapped, plan, {
      summary: () => {
        throw new Error('acon: an observation-only plan has no summary');
      },
      replace: (item, parts) => replaceText(item, parts.get(-1)),
    });

    const folded = await this.fold(
      compressed,
      at === -1 ? null : at,
      previous,
      args?.force === true,
    );
    const next = folded?.items ?? withSummary(compressed, at === -1 ? null : stored[at]!, at);
    const changed = next.length !== stored.length || next.some((item, i) => item !== stored[i]);
    if (!changed) return null;
    await this.replace(stored, next);
    const events = [...plan.report.events, ...(folded?.report.events ?? [])];
    this.opts.onCompaction?.({
      itemsBefore: stored.length,
      itemsAfter: next.length,
      observations: plan.report,
      ...(folded ? { history: folded.report } : {}),
    });
    const fresh = events.filter((e) => !e.cached);
    const inputTokens = fresh.reduce((n, e) => n + e.inputTokens, 0);
    const outputTokens = fresh.reduce((n, e) => n + e.outputTokens, 0);
    return {
      usage: new RequestUsage({
        inputTokens,
        outputTokens,
        totalTokens: inputTokens + outputTokens,
      }),
    };
  }

  /**
   * Every turn but the last `keepTurns` folded into one marked summary item, when the history
   * (previous summary included) is over `historyTokens`; null when it is not, or when the
   * compressor failed (the history is then kept as it is). The latest run's own request stays
   * verbatim after the summary even when its turns are folded: it is the task the kept turns
   * answer (what ACON keeps of a single run), and the next run's fold takes it in.
   * `headItems` is where the previous summary stood: the items before it are the head, and the
   * requests after it history (read alone, a request right after the head would join it).
   */
  private async fold(
    items: AgentInputItem[],
    headItems: number | null,
    previous: string | null,
    force: boolean,
  ) {
    const mapped = toOpenAi(items);
    const indexed = indexTrajectory(mapped.messages);
    const { trajectory } = indexed;
    const headEnd =
      headItems === null
        ? indexed.headEnd
        : mapped.source.filter((s) => s.message < headItems).length;
    const turnStarts = mapped.messages.flatMap((m, i) =>
      i >= headEnd && m.role === 'assistant' ? [i] : [],
    );
    if (turnStarts.length <= this.keepTurns) return null;
    if (!force && historyTokens(trajectory, previous) <= this.historyTokens) {
      return null;
    }
    const cut = turnStarts[turnStarts.length - this.keepTurns]!;
    const lastRequest = mapped.messages.findLastIndex((m, i) => i >= headEnd && m.role === 'user');
    const request = lastRequest !== -1 && lastRequest < cut ? lastRequest : null;
    const folded = mapped.messages.slice(0, cut).filter((_, i) => i !== request);
    const { summary, report } = await this.compressor.fold(folded, previous);
    if (summary === null) return null;
    const itemAt = (i: number) => mapped.source[i]!.message;
    return {
      items: [
        ...items.slice(0, itemAt(headEnd)),
        summaryItem(summary),
        ...(request === null ? [] : [items[itemAt(request)]!]),
        ...items.slice(itemAt(cut)),
      ],
      report,
    };
  }

  /** The stored history replaced; put back as it was when writing the new one fails. */
  private async replace(before: AgentInputItem[], after: AgentInputItem[]): Promise<void> {
    await this.store.clearSession();
    try {
      await this.store.addItems(after);
    } catch (err) {
      await this.store.clearSession();
      await this.store.addItems(before);
      throw err;
    }
  }
}

/**
 * Prompt tokens of the stored history as a model would be shown it, summary included (every
 * message counts once, whether the trajectory reads it as task or as history).
 */
function historyTokens(trajectory: Trajectory, previous: string | null): number {
  const messages: ChatMessage[] = [
    { role: 'system', content: trajectory.system },
    { role: 'user', content: trajectory.task },
    ...(previous === null ? [] : [{ role: 'user' as const, content: previous }]),
    ...trajectory.turns.flatMap((t) => [t.assistant, ...t.observations]),
  ];
  return countMessageTokens(messages);
}

function summaryItem(text: string): AgentInputItem {
  return { type: 'message', role: 'user', content: text, providerData: { [SUMMARY_MARK]: true } };
}

function isSummary(item: AgentInputItem): boolean {
  const data = (item as { providerData?: Record<string, unknown> }).providerData;
  return data?.[SUMMARY_MARK] === true;
}

function summaryText(item: AgentInputItem): string {
  const content = (item as { content?: unknown }).content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** The previous summary put back where it was when this compaction did not fold. */
function withSummary(items: AgentInputItem[], summary: AgentInputItem | null, at: number) {
  return summary === null ? items : [...items.slice(0, at), summary, ...items.slice(at)];
}

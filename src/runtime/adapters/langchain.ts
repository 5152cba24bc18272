/**
 * `acon/langchain`: ACON for LangChain.js v1 agents as agent middleware.
 *
 * @example
 * import { createAgent } from 'langchain';
 * import { aconMiddleware } from 'acon/langchain';
 * const agent = createAgent({ model, tools, middleware: [aconMiddleware(compressor)] });
 */
import { randomUUID } from 'node:crypto';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { RemoveMessage } from '@langchain/core/messages';
import {
  AIMessage,
  countTokensApproximately,
  createMiddleware,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from 'langchain';
import type { ContextCompressor, PlanOptions } from '../context-compressor.js';
import { resolveCompressor, type AdapterCompressor } from './compressor-input.js';
import { chatModelCompressor, isChatModel } from './langchain-compressor.js';
import {
  carriedTask,
  DEFAULT_SUMMARY_PREFIX,
  foldCutoff,
  summaryMessage,
  type ContextSize,
  type FoldRule,
  type KeepSize,
  type TokenCounter,
} from './langchain-fold.js';
import type { OpenAiMessage } from '../openai-messages.js';
import { outputText, rebuild, type Mapped } from '../rebuild.js';

/**
 * A compressor from `createContextCompressor`, or its options where `model` may also be any
 * LangChain chat model (`{ guidelines, model: new ChatAnthropic({ … }) }`).
 */
export type LangChainCompressor = AdapterCompressor<BaseChatModel>;

export { chatModelCompressor } from './langchain-compressor.js';

/**
 * When the history is folded, shaped like `summarizationMiddleware`'s options: set `trigger` and
 * acon folds on exactly the model calls that middleware would (same conditions, same cut that
 * keeps tool calls with their results), with ACON's history compressor writing the summary and
 * the task kept verbatim. Without `trigger`, acon's own T_hist rule folds.
 */
export type LangChainFoldOptions = {
  /** One condition (all its fields must hold) or a list (any one). @example { tokens: 4000 } */
  trigger?: ContextSize | ContextSize[];
  /** What stays verbatim after a fold. @default { messages: 20 } */
  keep?: KeepSize;
  /** Counts the state's tokens for `trigger` and `keep`. @default countTokensApproximately */
  tokenCounter?: TokenCounter;
  /** @default 'Here is a summary of the conversation to date:' (LangChain's) */
  summaryPrefix?: string;
  /**
   * Replace the folded messages in the agent's state, as `summarizationMiddleware` does
   * (checkpoints shrink). Off by default: the state then keeps every message as it was, so the
   * caller, a checkpointer or learning from recorded traces later still has the whole conversation,
   * and only what the model receives is folded (recomputed each call from the call cache).
   * @default false
   */
  replaceState?: boolean;
  /** The context window for `fraction`. @default the compressor model's `profile.maxInputTokens` */
  maxInputTokens?: number;
};

/** What `aconMiddleware` takes: a compressor, or its options with the fold options beside them. */
type LangChainInput =
  ContextCompressor | (Exclude<LangChainCompressor, ContextCompressor> & LangChainFoldOptions);

/**
 * Middleware whose `wrapModelCall` hands the model a compressed copy of the agent's messages:
 * tool results over T_obs compressed, the history folded into a summary (over T_hist, or by
 * `trigger`/`keep`). The agent's state keeps every message as it was unless `replaceState`; the
 * system prompt passes through.
 */
export function aconMiddleware(input: LangChainInput, fold: LangChainFoldOptions = {}) {
  const compressor = resolveCompressor(input, isChatModel, chatModelCompressor);
  const opts: LangChainFoldOptions = { ...('plan' in input ? {} : input), ...fold };
  if (opts.trigger === undefined) {
    return createMiddleware({
      name: 'AconCompression',
      wrapModelCall: async (request, handler) =>
        handler({ ...request, messages: await compressMessages(compressor, request.messages) }),
    });
  }
  const model = 'plan' in input ? undefined : input.model;
  const profiled = isChatModel(model) ? model.profile?.maxInputTokens : undefined;
  const maxInputTokens = opts.maxInputTokens ?? profiled ?? undefined;
  const rule: FoldRule = {
    trigger: opts.trigger,
    keep: opts.keep ?? { messages: 20 },
    tokenCounter: opts.tokenCounter ?? ((m) => countTokensApproximately(m)),
    ...(maxInputTokens !== undefined ? { maxInputTokens } : {}),
  };
  const folder = new Folder(compressor, rule, opts.summaryPrefix ?? DEFAULT_SUMMARY_PREFIX);
  const obsOnly: PlanOptions = { history: false };
  if (!opts.replaceState) {
    return createMiddleware({
      name: 'AconCompression',
      wrapModelCall: async (request, handler) => {
        const view = withTask(await folder.replay(request.messages));
        return handler({ ...request, messages: await compressMessages(compressor, view, obsOnly) });
      },
    });
  }
  return createMiddleware({
    name: 'AconCompression',
    beforeModel: async (state) => {
      for (const m of state.messages) m.id ??= randomUUID();
      const next = await folder.step(state.messages);
      // LangGraph's REMOVE_ALL_MESSAGES: the messages reducer replaces the whole list.
      return next
        ? { messages: [new RemoveMessage({ id: '__remove_all__' }), ...next] }
        : undefined;
    },
    wrapModelCall: async (request, handler) =>
      handler({
        ...request,
        messages: await compressMessages(compressor, withTask(request.messages), obsOnly),
      }),
  });
}

export type { ContextSize, KeepSize, TokenCounter } from './langchain-fold.js';

/** Folds by the LangChain rule, the summary written by ACON's history compressor. */
class Folder {
  constructor(
    private readonly compressor: ContextCompressor,
    private readonly rule: FoldRule,
    private readonly prefix: string,
  ) {}

  /**
   * The state `summarizationMiddleware` would have left before this call, from the whole
   * conversation: a fold is tried before every model call (each AI message), as its
   * `beforeModel` hook is. Summaries already written come from the call cache.
   */
  async replay(messages: BaseMessage[]): Promise<BaseMessage[]> {
    let state: BaseMessage[] = [];
    for (const [i, m] of messages.entries()) {
      if (i > 0 && AIMessage.isInstance(m)) state = (await this.step(state)) ?? state;
      state.push(m);
    }
    return (await this.step(state)) ?? state;
  }

  /** The state after one `beforeModel`: null when nothing is folded. */
  async step(state: BaseMessage[]): Promise<BaseMessage[] | null> {
    const cut = await foldCutoff(state, this.rule);
    if (cut === null) return null;
    const folded = state.slice(0, cut).filter((m) => !SystemMessage.isInstance(m));
    const first = folded[0];
    if (first === undefined) return null;
    const task = carriedTask(first);
    const previous = task === undefined ? null : first.text.slice(this.prefix.length).trim();
    const turns = task === undefined ? folded : [new HumanMessage(task), ...folded.slice(1)];
    const mapped = toOpenAi(turns);
    const { summary } = await this.compressor.fold(mapped.messages, previous);
    if (summary === null) return null;
    const head = mapped.messages.findIndex((m) => m.role === 'assistant');
    const taskText =
      task ??
      turns
        .slice(0, head === -1 ? turns.length : head)
        .map((m) => m.text)
        .join('\n\n');
    return [summaryMessage(summary, this.prefix, first, taskText), ...state.slice(cut)];
  }
}

/** The view the model gets: the task acon keeps verbatim, before the summary that carries it. */
function withTask(messages: BaseMessage[]): BaseMessage[] {
  const at = messages.findIndex((m) => !SystemMessage.isInstance(m));
  const task = carriedTask(messages[at]);
  if (task === undefined) return messages;
  return [...messages.slice(0, at), new HumanMessage(task), ...messages.slice(at)];
}

/** LangChain messages with ACON applied; the same objects where nothing changed. */
export async function compressMessages(
  compressor: ContextCompressor,
  messages: BaseMessage[],
  opts?: PlanOptions,
): Promise<BaseMessage[]> {
  const mapped = toOpenAi(messages);
  const plan = await compressor.plan(mapped.messages, opts);
  return rebuild<BaseMessage>(messages, mapped, plan, {
    summary: (text) => new HumanMessage(text),
    replace: (m, parts) => replace(m, parts.get(-1)),
  });
}

function toOpenAi(messages: readonly BaseMessage[]): Mapped {
  const mapped: Mapped = { messages: [], source: [] };
  messages.forEach((m, i) => {
    let out: OpenAiMessage;
    switch (m.getType()) {
      case 'system':
        out = { role: 'system', content: m.text };
        break;
      case 'ai': {
        const calls = (
          (m as { tool_calls?: { id?: string; name: string; args: unknown }[] }).tool_calls ?? []
        ).map((c, j) => ({
          id: c.id ?? `call_${i}_${j}`,
          type: 'function' as const,
          function: { name: c.name, arguments: outputText(c.args) },
        }));
        out =
          calls.length > 0
            ? { role: 'assistant', content: m.text === '' ? null : m.text, tool_calls: calls }
            : { role: 'assistant', content: m.text };
        break;
      }
      case 'tool':
        out = { role: 'tool', tool_call_id: (m as ToolMessage).tool_call_id, content: m.text };
        break;
      default:
        out = { role: 'user', content: m.text };
    }
    mapped.messages.push(out);
    mapped.source.push({ message: i });
  });
  return mapped;
}

function replace(m: BaseMessage, text: string | undefined): BaseMessage {
  if (text === undefined) return m;
  if (ToolMessage.isInstance(m)) {
    return new ToolMessage({
      content: text,
      tool_call_id: m.tool_call_id,
      ...(m.name !== undefined ? { name: m.name } : {}),
      ...(m.id !== undefined ? { id: m.id } : {}),
      ...(m.status !== undefined ? { status: m.status } : {}),
    });
  }
  if (m.getType() === 'human')
    return new HumanMessage({ content: text, ...(m.id ? { id: m.id } : {}) });
  return m;
}

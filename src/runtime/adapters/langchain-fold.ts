/**
 * When and where acon/langchain folds the history under `trigger`/`keep`: LangChain's own
 * `summarizationMiddleware` rule (langchain 1.x, dist/agents/middleware/summarization.js:
 * shouldSummarize, determineCutoffIndex, findSafeCutoff, findTokenBasedCutoff), so a fold happens
 * on exactly the model calls that middleware would fold on. Only the summary differs: ACON's
 * history compressor writes it with the learned guideline, and the task stays verbatim.
 */
import { AIMessage, HumanMessage, ToolMessage, SystemMessage, type BaseMessage } from 'langchain';

/** A condition on the agent state; all its fields must hold (LangChain's `ContextSize`). */
export type ContextSize = { tokens?: number; messages?: number; fraction?: number };
/** How much of the state stays verbatim after a fold; exactly one field (LangChain's `keep`). */
export type KeepSize = { tokens: number } | { messages: number } | { fraction: number };
/** LangChain's `TokenCounter`. */
export type TokenCounter = (messages: BaseMessage[]) => number | Promise<number>;

/** LangChain's defaults (summarization.js). */
export const DEFAULT_SUMMARY_PREFIX = 'Here is a summary of the conversation to date:';
const DEFAULT_MESSAGES_TO_KEEP = 20;
const SEARCH_RANGE_FOR_TOOL_PAIRS = 5;

export type FoldRule = {
  /** One condition (all of its fields) or a list (any of them). */
  trigger: ContextSize | ContextSize[];
  keep: KeepSize;
  tokenCounter: TokenCounter;
  /** The model's context window, for `fraction`. */
  maxInputTokens?: number;
};

/** Where to cut `state` (the agent's messages): the index of the first kept message, or null. */
export async function foldCutoff(state: BaseMessage[], rule: FoldRule): Promise<number | null> {
  const total = await rule.tokenCounter(state);
  const conditions = Array.isArray(rule.trigger) ? rule.trigger : [rule.trigger];
  if (!conditions.some((c) => conditionMet(c, state.length, total, rule.maxInputTokens))) {
    return null;
  }
  const offset = state.length > 0 && SystemMessage.isInstance(state[0]) ? 1 : 0;
  const conversation = state.slice(offset);
  const cutoff = await cutoffIndex(conversation, rule);
  return cutoff <= 0 ? null : cutoff + offset;
}

function conditionMet(c: ContextSize, count: number, total: number, max?: number): boolean {
  let any = false;
  if (c.messages !== undefined) {
    any = true;
    if (count < c.messages) return false;
  }
  if (c.tokens !== undefined) {
    any = true;
    if (total < c.tokens) return false;
  }
  if (c.fraction !== undefined) {
    any = true;
    if (max === undefined || total < Math.floor(max * c.fraction)) return false;
  }
  return any;
}

async function cutoffIndex(messages: BaseMessage[], rule: FoldRule): Promise<number> {
  const { keep } = rule;
  if ('messages' in keep) return safeCutoff(messages, keep.messages);
  const target =
    'tokens' in keep
      ? Math.floor(keep.tokens)
      : rule.maxInputTokens === undefined
        ? undefined
        : Math.floor(rule.maxInputTokens * keep.fraction);
  if (target === undefined) return safeCutoff(messages, DEFAULT_MESSAGES_TO_KEEP);
  return tokenCutoff(messages, Math.max(1, target), rule.tokenCounter);
}

async function tokenCutoff(
  messages: BaseMessage[],
  target: number,
  counter: TokenCounter,
): Promise<number> {
  if (messages.length === 0 || (await counter(messages)) <= target) return 0;
  // The earliest index whose suffix fits, by binary search (as LangChain bounds it).
  let left = 0;
  let right = messages.length;
  let candidate = messages.length;
  const iterations = Math.floor(Math.log2(messages.length)) + 1;
  for (let i = 0; i < iterations && left < right; i++) {
    const mid = Math.floor((left + right) / 2);
    if ((await counter(messages.slice(mid))) <= target) {
      candidate = mid;
      right = mid;
    } else left = mid + 1;
  }
  if (candidate === messages.length) candidate = left;
  if (candidate >= messages.length) {
    if (messages.length === 1) return 0;
    candidate = messages.length - 1;
  }
  const safe = safeCutoffPoint(messages, candidate);
  if (safe <= candidate) return safe;
  for (let i = candidate; i >= 0; i--) if (isSafeCutoff(messages, i)) return i;
  return 0;
}

function safeCutoff(messages: BaseMessage[], keep: number): number {
  if (messages.length <= keep) return 0;
  const target = messages.length - keep;
  const safe = safeCutoffPoint(messages, target);
  if (safe <= target) return safe;
  for (let i = target; i >= 0; i--) if (isSafeCutoff(messages, i)) return i;
  return 0;
}

function toolCallIds(m: BaseMessage): Set<string> {
  const calls = AIMessage.isInstance(m) ? (m.tool_calls ?? []) : [];
  return new Set(calls.flatMap((c) => (c.id ? [c.id] : [])));
}

const hasToolCalls = (m: BaseMessage) => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0;

/** A cut landing on tool results moves back to the AI message that called them. */
function safeCutoffPoint(messages: BaseMessage[], cutoff: number): number {
  if (cutoff >= messages.length || !ToolMessage.isInstance(messages[cutoff])) return cutoff;
  const ids = new Set<string>();
  let idx = cutoff;
  while (idx < messages.length && ToolMessage.isInstance(messages[idx])) {
    ids.add((messages[idx] as ToolMessage).tool_call_id);
    idx++;
  }
  for (let i = cutoff - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (hasToolCalls(m)) {
      const own = toolCallIds(m);
      for (const id of ids) if (own.has(id)) return i;
    }
  }
  return idx;
}

function isSafeCutoff(messages: BaseMessage[], cutoff: number): boolean {
  if (cutoff >= messages.length) return true;
  if (hasToolCalls(messages[cutoff]!)) return false;
  const end = Math.min(messages.length, cutoff + SEARCH_RANGE_FOR_TOOL_PAIRS);
  for (let i = Math.max(0, cutoff - SEARCH_RANGE_FOR_TOOL_PAIRS); i < end; i++) {
    if (!hasToolCalls(messages[i]!)) continue;
    const ids = toolCallIds(messages[i]!);
    for (let j = i + 1; j < messages.length; j++) {
      const m = messages[j]!;
      if (ToolMessage.isInstance(m) && ids.has(m.tool_call_id) && i < cutoff !== j < cutoff) {
        return false;
      }
    }
  }
  return true;
}

/** The summary message of a fold, as LangChain writes it, with the task acon keeps verbatim. */
export function summaryMessage(
  summary: string,
  prefix: string,
  replaces: BaseMessage,
  task: string,
): HumanMessage {
  return new HumanMessage({
    content: `${prefix}\n\n${summary}`,
    ...(replaces.id ? { id: replaces.id } : {}),
    additional_kwargs: { lc_source: 'summarization', acon_task: task },
  });
}

/** The task an acon summary message carries, or undefined for any other message. */
export function carriedTask(m: BaseMessage | undefined): string | undefined {
  const task = m?.additional_kwargs?.acon_task;
  return typeof task === 'string' ? task : undefined;
}

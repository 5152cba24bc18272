/**
 * `acon/langchain`: ACON for LangChain.js v1 agents as agent middleware.
 *
 * @example
 * import { createAgent } from 'langchain';
 * import { aconMiddleware } from 'acon/langchain';
 * const agent = createAgent({ model, tools, middleware: [aconMiddleware(compressor)] });
 */
import { createMiddleware, HumanMessage, ToolMessage, type BaseMessage } from 'langchain';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ContextCompressor } from '../context-compressor.js';
import { resolveCompressor, type AdapterCompressor } from './compressor-input.js';
import { chatModelCompressor, isChatModel } from './langchain-compressor.js';
import type { OpenAiMessage } from '../openai-messages.js';
import { outputText, rebuild, type Mapped } from '../rebuild.js';

/**
 * A compressor from `createContextCompressor`, or its options where `model` may also be any
 * LangChain chat model (`{ guidelines, model: new ChatAnthropic({ … }) }`).
 */
export type LangChainCompressor = AdapterCompressor<BaseChatModel>;

export { chatModelCompressor } from './langchain-compressor.js';

/**
 * Middleware whose `wrapModelCall` hands the model a compressed copy of the agent's messages:
 * tool results over T_obs compressed, the history over T_hist folded into a summary. The agent's
 * state keeps every message as it was; the system prompt passes through.
 */
export function aconMiddleware(input: LangChainCompressor) {
  const compressor = resolveCompressor(input, isChatModel, chatModelCompressor);
  return createMiddleware({
    name: 'AconCompression',
    wrapModelCall: async (request, handler) =>
      handler({ ...request, messages: await compressMessages(compressor, request.messages) }),
  });
}

/** LangChain messages with ACON applied; the same objects where nothing changed. */
export async function compressMessages(
  compressor: ContextCompressor,
  messages: BaseMessage[],
): Promise<BaseMessage[]> {
  const mapped = toOpenAi(messages);
  const plan = await compressor.plan(mapped.messages);
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

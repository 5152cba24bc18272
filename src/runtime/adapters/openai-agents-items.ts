import type { AgentInputItem } from '@openai/agents';
import type { OpenAiMessage } from '../openai-messages.js';
import { outputText, type Mapped } from '../rebuild.js';

type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };
type AssistantDraft = { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] };

/** Text of a message's content: a string, or the text of its parts. */
function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return outputText(content);
  return content
    .map((p: { text?: unknown; refusal?: unknown }) =>
      typeof p.text === 'string' ? p.text : typeof p.refusal === 'string' ? p.refusal : '',
    )
    .filter((t) => t !== '')
    .join('\n');
}

function resultText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output !== null && typeof output === 'object' && !Array.isArray(output)) {
    const o = output as { type?: unknown; text?: unknown };
    if (o.type === 'text' && typeof o.text === 'string') return o.text;
  }
  return Array.isArray(output) ? partsText(output) : outputText(output);
}

/**
 * Items as chat messages: a user or system message is one message; reasoning, an assistant
 * message and the function calls after it are one assistant message (a turn's action); each
 * function result is a tool message. Other items (hosted tools) travel with the message before.
 */
export function toOpenAi(input: readonly AgentInputItem[]): Mapped {
  const mapped: Mapped = { messages: [], source: [] };
  let open: AssistantDraft | null = null;
  const assistant = (i: number): AssistantDraft => {
    if (open) return open;
    open = { role: 'assistant', content: null };
    mapped.messages.push(open as OpenAiMessage);
    mapped.source.push({ message: i });
    return open;
  };
  input.forEach((item, i) => {
    const type = 'type' in item ? item.type : 'message';
    if (type === 'message' && 'role' in item) {
      if (item.role === 'assistant') {
        const a = assistant(i);
        const text = partsText(item.content);
        a.content = a.content === null ? text : `${a.content}\n${text}`;
        return;
      }
      open = null;
      mapped.messages.push(
        item.role === 'system'
          ? { role: 'system', content: partsText(item.content) }
          : { role: 'user', content: partsText(item.content) },
      );
      mapped.source.push({ message: i });
    } else if (type === 'reasoning') {
      assistant(i);
    } else if (item.type === 'function_call') {
      const a = assistant(i);
      (a.tool_calls ??= []).push({
        id: item.callId,
        type: 'function',
        function: { name: item.name, arguments: item.arguments },
      });
    } else if (item.type === 'function_call_result') {
      open = null;
      mapped.messages.push({
        role: 'tool',
        tool_call_id: item.callId,
        content: resultText(item.output),
      });
      mapped.source.push({ message: i });
    }
  });
  return mapped;
}

export function replaceText(item: AgentInputItem, text: string | undefined): AgentInputItem {
  if (text === undefined) return item;
  if ('type' in item && item.type === 'function_call_result') {
    return {
      ...item,
      output: typeof item.output === 'string' ? text : { type: 'text' as const, text },
    };
  }
  if ('role' in item && item.role === 'user') return { ...item, content: text };
  return item;
}

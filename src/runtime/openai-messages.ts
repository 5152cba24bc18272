import type {
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import type { Trajectory, Turn, AssistantMessage, ChatMessage, ToolCall } from '../domain/index.js';

/** A chat-completions message as the `openai` package types it (what an agent sends). */
export type OpenAiMessage = ChatCompletionMessageParam;

/**
 * An OpenAI-style message list read as an ACON trajectory (seed 001 §3.1), with the position of
 * every message in the list it came from:
 *
 * - the head, every message before the first assistant message, stays verbatim; its system and
 *   developer texts are the system prompt, its user texts the task the compressors are shown;
 * - from the first assistant message on, each assistant message opens a turn and the messages up
 *   to the next assistant message (tool results, user or system messages) are its observations.
 *
 * A turn is what a context strategy keeps or folds whole, so a tool call is never separated
 * from its result.
 */
export type IndexedTrajectory = {
  trajectory: Trajectory;
  /** Messages [0, headEnd) of the input are the head. */
  headEnd: number;
  /** Input index of each turn's assistant message. */
  turnStarts: number[];
  /** Input index of each observation, per turn. */
  observationIndex: number[][];
};

/** The text of a message's content: strings as they are, the text parts of a part list joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content as unknown[]) {
    if (part !== null && typeof part === 'object') {
      const p = part as { type?: unknown; text?: unknown; refusal?: unknown };
      if (typeof p.text === 'string') texts.push(p.text);
      else if (typeof p.refusal === 'string') texts.push(p.refusal);
    }
  }
  return texts.join('\n');
}

function toolCall(call: ChatCompletionMessageToolCall): ToolCall {
  if (call.type === 'function') {
    return { id: call.id, type: 'function', function: call.function };
  }
  return {
    id: call.id,
    type: 'function',
    function: { name: call.custom.name, arguments: call.custom.input },
  };
}

function assistantMessage(m: Extract<OpenAiMessage, { role: 'assistant' }>): AssistantMessage {
  const calls = m.tool_calls ?? [];
  const text = m.content === null || m.content === undefined ? null : contentText(m.content);
  return calls.length === 0
    ? { role: 'assistant', content: text }
    : { role: 'assistant', content: text, tool_calls: calls.map(toolCall) };
}

function observation(m: Exclude<OpenAiMessage, { role: 'assistant' }>): ChatMessage {
  switch (m.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: m.tool_call_id, content: contentText(m.content) };
    case 'system':
    case 'developer':
      return { role: 'system', content: contentText(m.content) };
    default:
      return { role: 'user', content: contentText(m.content) };
  }
}

export function indexTrajectory(messages: readonly OpenAiMessage[]): IndexedTrajectory {
  let headEnd = messages.findIndex((m) => m.role === 'assistant');
  if (headEnd === -1) headEnd = messages.length;
  const system: string[] = [];
  const task: string[] = [];
  for (const m of messages.slice(0, headEnd)) {
    if (m.role === 'system' || m.role === 'developer') system.push(contentText(m.content));
    else if (m.role === 'user') task.push(contentText(m.content));
  }
  const turns: Turn[] = [];
  const turnStarts: number[] = [];
  const observationIndex: number[][] = [];
  for (let i = headEnd; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') {
      turns.push({ assistant: assistantMessage(m), observations: [] });
      turnStarts.push(i);
      observationIndex.push([]);
    } else {
      turns.at(-1)!.observations.push(observation(m));
      observationIndex.at(-1)!.push(i);
    }
  }
  return {
    trajectory: { system: system.join('\n\n'), task: task.join('\n\n'), turns },
    headEnd,
    turnStarts,
    observationIndex,
  };
}

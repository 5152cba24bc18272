import type { ChatMessage, ToolDef } from './types.js';

/**
 * Per-message framing of the chat format (`<|im_start|>role<|im_sep|>…<|im_end|>`) and the
 * priming of the reply, from OpenAI's cookbook "How to count tokens with tiktoken".
 */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_REPLY = 3;
/** Framing of one tool call (id, type and name wrapper) and of one tool definition; estimates. */
const TOKENS_PER_TOOL_CALL = 3;
const TOKENS_PER_TOOL_DEF = 8;
const TOKENS_FOR_TOOLS_BLOCK = 12;

/**
 * The tokens of one message as the model sees it: its framing, role, content, and each tool
 * call's name and arguments, the texts counted by `count`.
 */
export function frameMessage(m: ChatMessage, count: (text: string) => number): number {
  let n = TOKENS_PER_MESSAGE + count(m.role) + count(m.content ?? '');
  if (m.role === 'assistant' && m.tool_calls) {
    for (const call of m.tool_calls) {
      n += TOKENS_PER_TOOL_CALL + count(call.function.name) + count(call.function.arguments);
    }
  }
  return n;
}

/** The tokens the tool definitions add to a prompt. */
export function frameTools(tools: readonly ToolDef[], count: (text: string) => number): number {
  let n = TOKENS_FOR_TOOLS_BLOCK;
  for (const t of tools) n += TOKENS_PER_TOOL_DEF + count(toolText(t));
  return n;
}

/**
 * Every text `frameMessage` and `frameTools` count for these messages and tools: what a counter
 * that asks a server must have fetched before it counts them (server-tokenizer.ts).
 */
export function promptTexts(
  messages: readonly ChatMessage[],
  tools?: readonly ToolDef[],
): string[] {
  const texts: string[] = [];
  for (const m of messages) {
    texts.push(m.role, m.content ?? '');
    if (m.role === 'assistant' && m.tool_calls) {
      for (const call of m.tool_calls) texts.push(call.function.name, call.function.arguments);
    }
  }
  for (const t of tools ?? []) texts.push(toolText(t));
  return texts;
}

function toolText(t: ToolDef): string {
  return JSON.stringify(t.function);
}

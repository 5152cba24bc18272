import { z } from 'zod';
import { ToolDefSchema, type ChatMessage } from '../../llm/index.js';
import { checkChat, type LintMessage } from '../lint/chat-rules.js';
import type { TrainingExample } from '../schema.js';
import { assistantTurn } from './assistant-turn.js';
import type { FormatSpec } from './types.js';

/**
 * OpenAI chat fine-tuning: `{"messages": [...], "tools"?: [...]}` per line, messages in the chat
 * completions shape (tool-call arguments as JSON strings). Earlier assistant turns of an agent
 * prompt get `"weight": 0`, so only the teacher's answer at this step is trained on (each step
 * is its own example; training on the history too would count early turns many times).
 */

const ToolCallSchema = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
});

/** The assistant message's per-message training switch differs by format (weight / training). */
export function chatMessageSchema<W extends z.ZodRawShape>(assistantExtra: W) {
  return z.discriminatedUnion('role', [
    z.strictObject({ role: z.literal('system'), content: z.string() }),
    z.strictObject({ role: z.literal('user'), content: z.string() }),
    z.strictObject({
      role: z.literal('assistant'),
      content: z.string().nullable().optional(),
      tool_calls: z.array(ToolCallSchema).min(1).optional(),
      ...assistantExtra,
    }),
    z.strictObject({
      role: z.literal('tool'),
      tool_call_id: z.string().min(1),
      content: z.string(),
    }),
  ]);
}

export const OpenAiMessageSchema = chatMessageSchema({
  weight: z.union([z.literal(0), z.literal(1)]).optional(),
});
export const OpenAiLineSchema = z.strictObject({
  messages: z.array(OpenAiMessageSchema).min(1),
  tools: z.array(ToolDefSchema).optional(),
});
export type OpenAiLine = z.infer<typeof OpenAiLineSchema>;
type OpenAiMessage = z.infer<typeof OpenAiMessageSchema>;

/**
 * Chat messages in OpenAI's shape with a fixed key order. `mark(i)` adds the per-message training
 * switch to assistant messages before the last one.
 */
export function toOpenAiMessages<M>(
  messages: readonly ChatMessage[],
  mark: (isFinal: boolean) => Record<string, unknown>,
): M[] {
  const last = messages.length - 1;
  return messages.map((m, i) => {
    switch (m.role) {
      case 'assistant':
        return { ...assistantTurn(m, (json) => json), ...mark(i === last) } as M;
      case 'tool':
        return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content } as M;
      default:
        return { role: m.role, content: m.content } as M;
    }
  });
}

/** Lint view of OpenAI-shaped messages (also used for Axolotl lines). */
export function openAiChat(
  messages: readonly {
    role: string;
    content?: string | null;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  }[],
): LintMessage[] {
  return messages.map((m) => ({
    role: m.role,
    content: m.content ?? null,
    toolCalls: (m.tool_calls ?? []).map((c) => ({
      id: c.id,
      name: c.function.name,
      arguments: c.function.arguments,
    })),
    toolCallId: m.tool_call_id ?? null,
  }));
}

export const openAiFormat: FormatSpec<OpenAiLine> = {
  name: 'openai',
  lineSchema: OpenAiLineSchema,
  line(ex: TrainingExample): OpenAiLine {
    const agent = ex.role === 'agent';
    const messages = toOpenAiMessages<OpenAiMessage>(ex.messages, (isFinal) =>
      agent && !isFinal ? { weight: 0 } : {},
    );
    return ex.tools ? { messages, tools: ex.tools } : { messages };
  },
  check: (line) => checkChat(openAiChat(line.messages)),
  chat: (line) => openAiChat(line.messages),
  sidecars: () => [],
};

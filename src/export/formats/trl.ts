import { z } from 'zod';
import { ToolDefSchema, type ChatMessage } from '../../llm/index.js';
import { checkChat, issue, type LintIssue, type LintMessage } from '../lint/chat-rules.js';
import type { TrainingExample } from '../schema.js';
import { assistantTurn } from './assistant-turn.js';
import type { FormatSpec } from './types.js';

/**
 * TRL conversational prompt/completion (`SFTTrainer` trains on the completion only):
 * `{"prompt": [messages…], "completion": [assistant message], "tools"?: [...]}`. Messages follow
 * the Hugging Face chat-template convention: tool-call arguments are JSON objects, and tool
 * results carry the `name` of the call they answer as well as its id.
 */

const TrlToolCallSchema = z.strictObject({
  id: z.string().optional(),
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string().min(1),
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  }),
});

export const TrlMessageSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: z.string() }),
  z.strictObject({ role: z.literal('user'), content: z.string() }),
  z.strictObject({
    role: z.literal('assistant'),
    content: z.string().nullable().optional(),
    tool_calls: z.array(TrlToolCallSchema).min(1).optional(),
  }),
  z.strictObject({
    role: z.literal('tool'),
    tool_call_id: z.string().optional(),
    name: z.string().optional(),
    content: z.string(),
  }),
]);
export const TrlLineSchema = z.strictObject({
  prompt: z.array(TrlMessageSchema).min(1),
  completion: z.array(TrlMessageSchema).min(1),
  tools: z.array(ToolDefSchema).optional(),
});
export type TrlLine = z.infer<typeof TrlLineSchema>;
type TrlMessage = z.infer<typeof TrlMessageSchema>;

/** Arguments as an object when they are a JSON object, else the string as recorded. */
function argumentsValue(args: string): Record<string, unknown> | string {
  try {
    const v = JSON.parse(args) as unknown;
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      return v as Record<string, unknown>;
  } catch {
    // not JSON: keep the text
  }
  return args;
}

function toTrl(messages: readonly ChatMessage[]): TrlMessage[] {
  const names = new Map<string, string>();
  return messages.map((m): TrlMessage => {
    switch (m.role) {
      case 'assistant':
        for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
        return assistantTurn(m, argumentsValue);
      case 'tool': {
        const name = names.get(m.tool_call_id);
        return {
          role: 'tool',
          tool_call_id: m.tool_call_id,
          ...(name ? { name } : {}),
          content: m.content,
        };
      }
      default:
        return { role: m.role, content: m.content };
    }
  });
}

function trlChat(messages: readonly TrlMessage[]): LintMessage[] {
  return messages.map((m) => ({
    role: m.role,
    content: m.content ?? null,
    toolCalls:
      m.role === 'assistant'
        ? (m.tool_calls ?? []).map((c) => ({
            id: c.id ?? null,
            name: c.function.name,
            arguments: c.function.arguments,
          }))
        : [],
    toolCallId: m.role === 'tool' ? (m.tool_call_id ?? null) : null,
  }));
}

function checkTrl(line: TrlLine): LintIssue[] {
  const issues: LintIssue[] = [];
  const bad = line.completion.findIndex((m) => m.role !== 'assistant');
  if (bad >= 0) {
    issues.push(
      issue(
        'trlShape',
        `completion message ${bad + 1} is a ${line.completion[bad]!.role} message; the completion holds the assistant's answer only`,
      ),
    );
  }
  if (line.prompt.at(-1)?.role === 'assistant') {
    issues.push(
      issue(
        'trlShape',
        'the prompt ends with an assistant message; it must end with the input the completion answers',
      ),
    );
  }
  return [...issues, ...checkChat(trlChat([...line.prompt, ...line.completion]))];
}

export const trlFormat: FormatSpec<TrlLine> = {
  name: 'trl',
  lineSchema: TrlLineSchema,
  line(ex: TrainingExample): TrlLine {
    const all = toTrl(ex.messages);
    const completion = all.slice(-1);
    const prompt = all.slice(0, -1);
    return ex.tools ? { prompt, completion, tools: ex.tools } : { prompt, completion };
  },
  check: checkTrl,
  chat: (line) => trlChat([...line.prompt, ...line.completion]),
  sidecars: () => [],
};

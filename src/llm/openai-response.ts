import { z } from 'zod';
import { CUT_REASONS, type AssistantMessage, type CutReason, type Usage } from './types.js';

/**
 * The parts of a chat completion acon reads, validated at the edge. Lenient where local servers
 * differ from OpenAI: a tool call without id or type, arguments sent as an object, no usage.
 */
const ToolCallWireSchema = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({
    name: z.string(),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

const UsageWireSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  prompt_tokens_details: z
    .object({ cached_tokens: z.number().int().nonnegative().nullish() })
    .nullish(),
  /** OpenAI's reasoning models report the hidden reasoning part of completion_tokens here. */
  completion_tokens_details: z
    .object({ reasoning_tokens: z.number().int().nonnegative().nullish() })
    .nullish(),
  /** DeepSeek reports its prompt cache here. */
  prompt_cache_hit_tokens: z.number().int().nonnegative().nullish(),
});

export const ChatCompletionWireSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(ToolCallWireSchema).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: UsageWireSchema.nullish(),
});

export type ParsedCompletion = {
  message: AssistantMessage;
  usage: Usage | undefined;
  finishReason?: CutReason;
};

/** Throws a readable Error when the body is not a chat completion. */
export function parseChatCompletion(body: unknown): ParsedCompletion {
  const parsed = ChatCompletionWireSchema.safeParse(body);
  if (!parsed.success) {
    const got =
      typeof body === 'string' ? `text ${JSON.stringify(body.slice(0, 200))}` : typeof body;
    const issue = parsed.error.issues[0];
    const at = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid';
    throw new Error(`not a chat completion (${at}; got ${got})`);
  }
  const { choices, usage } = parsed.data;
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens;
  const wire = choices[0]!.message;
  const reason = choices[0]!.finish_reason;
  const cut = CUT_REASONS.find((r) => r === reason);
  const toolCalls = (wire.tool_calls ?? []).map((c, i) => ({
    id: c.id ?? `call_${i}`,
    type: 'function' as const,
    function: {
      name: c.function.name,
      arguments:
        typeof c.function.arguments === 'string'
          ? c.function.arguments
          : JSON.stringify(c.function.arguments ?? {}),
    },
  }));
  const message: AssistantMessage = {
    role: 'assistant',
    content: wire.content ?? null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  return {
    message,
    ...(cut !== undefined ? { finishReason: cut } : {}),
    usage: usage
      ? {
          promptTokens: usage.prompt_tokens,
          completionTokens: usage.completion_tokens,
          cachedPromptTokens:
            usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0,
          ...(reasoning !== undefined && reasoning !== null ? { reasoningTokens: reasoning } : {}),
        }
      : undefined,
  };
}

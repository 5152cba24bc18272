import { z } from 'zod';
import { AssistantMessageSchema, ChatMessageSchema, ToolCallSchema } from './message.js';

/** One agent step as it is stored: what was sent, what came back, what the world answered. */
export const StepRecordSchema = z.object({
  /** 0-based step; equals the number of turns before it. */
  index: z.number().int().nonnegative(),
  /** The messages actually sent to the agent model (the strategy's view). */
  prompt: z.array(ChatMessageSchema),
  /** Tokens of `prompt` plus the tool definitions sent with it (system prompt included). */
  promptTokens: z.number().int().nonnegative(),
  assistant: AssistantMessageSchema,
  /** The first tool call of `assistant`; null when it made none. */
  toolCall: ToolCallSchema.nullable(),
  /** The observation messages appended to the trajectory for this step. */
  observations: z.array(ChatMessageSchema),
  observationTokens: z.number().int().nonnegative(),
  /** Latency of the agent call (0 for a cached answer). */
  latencyMs: z.number().nonnegative(),
  /** Row id of the agent call in llm_calls. */
  callId: z.number().int(),
  /** The prompt was rebuilt by reactive compression after a context-length error (seed 002). */
  reactive: z.boolean(),
  /** The model made no tool call; `observations` is the loop's corrective message. */
  malformed: z.boolean(),
});
export type StepRecord = z.infer<typeof StepRecordSchema>;

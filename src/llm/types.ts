import { z } from 'zod';
import type { LimitParam, ReasoningEffort } from '../config/index.js';
import type { AssistantMessage, ChatMessage } from '../domain/index.js';

/**
 * The five LLM roles of ACON (ARCHITECTURE §3), always configured, and the optional `judge` of
 * replayed final answers (issue #57), called only when `roles.judge` is set. The summary
 * baseline uses `hist_compressor`.
 */
export const LlmRoleSchema = z.enum([
  'agent',
  'obs_compressor',
  'hist_compressor',
  'analyzer',
  'updater',
  'judge',
]);
export type LlmRole = z.infer<typeof LlmRoleSchema>;
/** The roles every config has (`judge` is optional: see `configuredRoles`). */
export const LLM_ROLES = [
  'agent',
  'obs_compressor',
  'hist_compressor',
  'analyzer',
  'updater',
] as const;
export type CoreLlmRole = (typeof LLM_ROLES)[number];

/** The message records live in src/domain; they are also the words of this port. */
export {
  AssistantMessageSchema,
  ChatMessageSchema,
  SystemMessageSchema,
  ToolCallSchema,
  ToolMessageSchema,
  UserMessageSchema,
  type AssistantMessage,
  type ChatMessage,
  type ToolCall,
  type ToolMessage,
} from '../domain/index.js';
export const ToolDefSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
  }),
});
export type ToolDef = z.infer<typeof ToolDefSchema>;

/** What a caller asks for; model and sampling come from the role's config unless set here. */
export type ChatRequest = {
  messages: ChatMessage[];
  tools?: ToolDef[];
  /** Ask for JSON matching this JSON schema (OpenAI `response_format: json_schema`). */
  responseFormat?: { name: string; schema: Record<string, unknown> };
  temperature?: number;
  maxTokens?: number;
  seed?: number;
};

/** Who is calling and for what; recorded with every call. */
export type CallContext = {
  role: LlmRole;
  runId: string;
  rolloutId?: string;
  taskId?: string;
  step?: number;
  /** Skip the call cache for this call (also set globally by --no-cache). */
  noCache?: boolean;
  /**
   * The rollout's sampling seed (a repeat of a selection task, optimize `--repeats`): sent as the
   * request's `seed` unless the request sets one, so it is part of the call-cache key and a
   * model that honours it samples each repeat on its own.
   */
  seed?: number;
};

export const UsageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  cachedPromptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  /**
   * Of `completionTokens`, a reasoning model's reasoning tokens
   * (`completion_tokens_details.reasoning_tokens`): billed as output, never seen in the answer.
   * Absent where the provider does not report them (and in answers recorded before schema 6).
   */
  reasoningTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** The request as a provider receives it: the role's model and sampling resolved. */
export type ProviderRequest = ChatRequest & {
  model: string;
  ctx: CallContext;
  /** Name of the role's endpoint in `config.endpoints` (HTTP providers); `default` when absent. */
  endpoint?: string;
  /** Which parameter carries `maxTokens` (by the model's family; see model-family.ts). */
  limitParam?: LimitParam;
  /** Sent to reasoning models only. */
  reasoningEffort?: ReasoningEffort;
};

/**
 * The `finish_reason` values that mean the answer is not whole: cut at the token limit, or
 * stopped by the provider's content filter. Every caller treats such an answer as a failed
 * attempt (issue #54); `stop` and `tool_calls` are not recorded.
 */
export const CUT_REASONS = ['length', 'content_filter'] as const;
export type CutReason = (typeof CUT_REASONS)[number];

/** What a provider returns for one successful HTTP (or simulated) call. */
export type ProviderResponse = {
  message: AssistantMessage;
  usage: Usage;
  /** Set only when the answer was cut (see CUT_REASONS). */
  finishReason?: CutReason;
};

/** Why an answer cannot be used because it was cut, in words for records and retry prompts. */
export function cutReasonText(reason: CutReason): string {
  return reason === 'length'
    ? 'the answer was cut off at the token limit (finish_reason: length)'
    : "the answer was stopped by the provider's content filter (finish_reason: content_filter)";
}

/**
 * A provider speaks to one kind of backend. It does no retries, caching or recording:
 * the LlmClient wraps it with those.
 */
export interface LlmProvider {
  readonly name: string;
  /** True for the offline simulation; every output of a run that used it says SIMULATED. */
  readonly simulated: boolean;
  chat(req: ProviderRequest, signal?: AbortSignal): Promise<ProviderResponse>;
  /**
   * The tokens of `text` in the model's own tokenizer, from the server (`tokenizer: server`);
   * absent where the backend has no such route.
   */
  tokenize?(req: TokenizeRequest, signal?: AbortSignal): Promise<number>;
}

/** One text to count on the model server, without special tokens (chat framing is counted apart). */
export type TokenizeRequest = {
  model: string;
  text: string;
  /** Name of the role's endpoint in `config.endpoints`; `default` when absent. */
  endpoint?: string;
};

export type ChatResult = {
  message: AssistantMessage;
  usage: Usage;
  /** Set only when the answer was cut: callers must treat it as a failed attempt. */
  finishReason?: CutReason;
  costUsd: number;
  cached: boolean;
  latencyMs: number;
  provider: string;
  model: string;
  /** Row id in llm_calls. */
  callId: number;
};

/** The port the rest of acon uses for every LLM call (ARCHITECTURE §3). */
export interface LlmClient {
  chat(req: ChatRequest, ctx: CallContext): Promise<ChatResult>;
  /**
   * The tokens of `text` in `role`'s model's tokenizer, asked of its server through the same
   * endpoint limits and retries as its chat calls (`tokenizer: server`); not recorded as a call.
   */
  tokenize?(role: LlmRole, text: string): Promise<number>;
}

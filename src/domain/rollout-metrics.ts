import { z } from 'zod';

// The metrics of one rollout as stored; src/metrics/metrics.ts computes them (ARCHITECTURE §4).

export const RoleUsageSchema = z.object({
  calls: z.number().int(),
  inputTokens: z.number().int(),
  cachedTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** Of the output tokens, a reasoning model's reasoning tokens (0 in metrics stored before them). */
  reasoningTokens: z.number().int().default(0),
  costUsd: z.number(),
  /** Full USD of the role's calls (as `RolloutMetrics.fullCostUsd`); null when unknown. */
  fullCostUsd: z.number().nullable().default(null),
});
export type RoleUsage = z.infer<typeof RoleUsageSchema>;

/** A role's usage before its first call: the start of every sum of calls by role. */
export function noRoleUsage(): Omit<RoleUsage, 'fullCostUsd'> {
  return {
    calls: 0,
    inputTokens: 0,
    cachedTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    costUsd: 0,
  };
}

export const RolloutMetricsSchema = z.object({
  success: z.boolean(),
  score: z.number(),
  steps: z.number().int(),
  /**
   * Peak (ACON paper v3, §4): the largest agent context of the rollout in tokens, the system
   * prompt and the tool definitions excluded (what the strategies can shrink). Rollouts stored
   * before this definition (their `peakPromptTokens` is null) counted both in.
   */
  peakInputTokens: z.number().int(),
  /**
   * Peak+sys: the largest agent prompt actually sent, system prompt and tool definitions
   * included (what a provider's context window must hold); null for rollouts stored before it.
   */
  peakPromptTokens: z.number().int().nullable().default(null),
  byRole: z.record(z.string(), RoleUsageSchema),
  /** Billed USD: what was paid (call-cache hits and simulated calls cost 0). */
  costUsd: z.number(),
  /**
   * Full USD: every call priced as if sent, prompt-prefix caching estimated (full-cost.ts);
   * null when a model has no price, or for rollouts stored before this metric existed.
   */
  fullCostUsd: z.number().nullable().default(null),
  /**
   * Dependency (ACON paper v3, Eq. 12, after MEM1): Σ over the agent's calls of
   * (n_in + 2·n_out)·n_out / 2, n_in the call's input tokens without the system prompt and the
   * tool definitions, n_out its output tokens: the attention work of generating every agent
   * token over the context it was given (compressor work shows in total tokens and cost). Null
   * for rollouts stored before this metric existed.
   */
  dependency: z.number().nullable().default(null),
  compressionEvents: z.number().int(),
  failedCompressions: z.number().int(),
  /**
   * Times the provider refused a prompt as longer than the model's context and the strategy cut
   * it down before the step was sent again (`reactive` events: raw drops the oldest turns, FIFO
   * style; acon folds the history; seed 002). 0 for rollouts stored before it was counted.
   */
  reactiveEvents: z.number().int().default(0),
  /** Tokens removed by compression events (input minus output, successful events only). */
  tokensSaved: z.number().int(),
  wallMs: z.number(),
  /** QA benchmarks only (src/bench/qa/metrics.ts): mean exact match over the task's questions. */
  exactMatch: z.number().optional(),
  /** QA benchmarks only: mean token F1 over the task's questions. */
  f1: z.number().optional(),
});
export type RolloutMetrics = z.infer<typeof RolloutMetricsSchema>;

/** The fields of one LLM call that metrics need (a row of llm_calls). */
export type CallUsage = {
  id: number;
  role: string;
  model: string;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** Of completionTokens, reasoning tokens (0 where the provider reports none). */
  reasoningTokens: number;
  costUsd: number;
};

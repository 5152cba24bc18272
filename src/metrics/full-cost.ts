import type { Price } from '../config/index.js';
import { costUsd } from '../llm/index.js';

/**
 * Cost "full": every call priced as if it had been sent, whether the call cache answered it
 * (billed $0) or not, so conditions compare fairly whatever ran first. Provider prompt-prefix
 * caching is estimated: the part of an agent prompt identical to the previous agent prompt of
 * the same rollout is billed at the model's `cached_input` price, following OpenAI's rules
 * (prompts of at least 1,024 tokens; cached in 128-token increments). A provider-reported
 * cached count, when larger, is used instead.
 */
export const PREFIX_CACHE_MIN_TOKENS = 1024;
export const PREFIX_CACHE_INCREMENT = 128;

/** Prompt tokens a provider's prefix cache would serve, from the shared prefix length. */
export function estimatedCachedTokens(sharedPrefixTokens: number, promptTokens: number): number {
  if (promptTokens < PREFIX_CACHE_MIN_TOKENS || sharedPrefixTokens < PREFIX_CACHE_MIN_TOKENS)
    return 0;
  const shared = Math.min(sharedPrefixTokens, promptTokens);
  return Math.floor(shared / PREFIX_CACHE_INCREMENT) * PREFIX_CACHE_INCREMENT;
}

export type PricedCall = {
  model: string;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** Tokens this prompt shares with the previous agent prompt of the rollout (0 for others). */
  sharedPrefixTokens: number;
};

/** Full cost of one call in USD; null when the model has no price (cannot be estimated). */
export function fullCallCost(call: PricedCall, prices: Record<string, Price>): number | null {
  const price = prices[call.model];
  if (!price) return null;
  const cached = Math.max(
    call.cachedTokens,
    estimatedCachedTokens(call.sharedPrefixTokens, call.promptTokens),
  );
  return costUsd(
    {
      promptTokens: call.promptTokens,
      cachedPromptTokens: cached,
      completionTokens: call.completionTokens,
    },
    price,
  );
}

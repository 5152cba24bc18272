import type { Price } from '../config/index.js';
import type { Usage } from './types.js';

const PER_MILLION = 1_000_000;

/**
 * USD cost of one call from the price table (USD per 1M tokens). Cached prompt tokens are part
 * of `promptTokens` (OpenAI's usage semantics) and billed at `cached_input`; the rest of the
 * prompt at `input`; completion tokens at `output`.
 *
 * An unknown model (`price` undefined) costs 0: the caller decides whether to warn about it.
 * @example costUsd({ promptTokens: 1000, cachedPromptTokens: 400, completionTokens: 100 },
 *   { input: 2, cached_input: 0.5, output: 8 }) // 0.0022
 */
export function costUsd(usage: Usage, price: Price | undefined): number {
  if (!price) return 0;
  const cached = Math.min(usage.cachedPromptTokens, usage.promptTokens);
  const uncached = usage.promptTokens - cached;
  return (
    (uncached * price.input + cached * price.cached_input + usage.completionTokens * price.output) /
    PER_MILLION
  );
}

import type { Config, ProviderName } from '../config/index.js';
import type { Clock } from '../clock.js';
import type { CallRecord, CallStore } from './call-store.js';
import type { LlmClient, LlmProvider } from './types.js';

export type CreateLlmClientOptions = {
  config: Config;
  /** Providers by config name; only those the roles use are needed. */
  providers: Partial<Record<ProviderName, LlmProvider>>;
  store: CallStore;
  /** `--no-cache`: never answer from the call cache (fresh answers are still written to it). */
  noCache?: boolean;
  /** @default the system clock */
  clock?: Pick<Clock, 'now' | 'sleep'>;
  /** Jitter of retry backoff; seeded for reproducible runs. @default Math.random */
  random?: () => number;
  /** Spending limit in USD (`--budget-usd`); overrides `config.budget.usd`, `null` = none. */
  budgetUsd?: number | null;
  /** USD the run spent before this client existed (`--resume`); counts against the budget. @default 0 */
  priorSpentUsd?: number;
  /** Told about every recorded call, after it is stored (progress, logging). */
  onCall?: (call: CallRecord & { callId: number }) => void;
  /**
   * Aborts requests in flight and stops retries (Ctrl-C); calls then fail with InterruptedError
   * (still recorded).
   */
  signal?: AbortSignal;
  /**
   * Told once when a provider's reported prompt tokens differ from acon's count by more than
   * 10% on a role's first calls (tokenizer-check.ts); unset: not checked.
   */
  onWarning?: (line: string) => void;
};

export type LlmStats = {
  /** `chat()` calls, each recorded once. */
  calls: number;
  cacheHits: number;
  errors: number;
  /** Provider attempts, retries included (cache hits make none). */
  requests: number;
  promptTokens: number;
  cachedPromptTokens: number;
  completionTokens: number;
  /** USD spent through this client (without `priorSpentUsd`). */
  costUsd: number;
  /** Models called on a paid provider without an entry in `prices`; their cost counts as 0. */
  unpricedModels: string[];
  /** Calls answered by a simulated provider. */
  simulatedCalls: number;
};

/** The LlmClient plus its running totals. */
export type MeteredLlmClient = LlmClient & {
  /** USD spent so far, `priorSpentUsd` included (cache hits and simulated calls cost nothing). */
  spentUsd(): number;
  stats(): LlmStats;
};

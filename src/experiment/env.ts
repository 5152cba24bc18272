import type { Benchmark } from '../bench/index.js';
import type { Config, ProviderName } from '../config/index.js';
import type { GuidelineStore } from '../guidelines/index.js';
import type { MeteredLlmClient } from '../llm/index.js';
import type { RunStore } from '../store/index.js';
import type { Warn } from '../errors.js';

/** What running rollouts needs; the CLI builds it (src/cli/session.ts), tests build their own. */
export type RunEnv = {
  config: Config;
  store: RunStore;
  bench: Benchmark;
  llm: MeteredLlmClient;
  simulated: boolean;
  /** role → "provider/model" as recorded with the run. */
  models: Record<string, string>;
  /** The agent's provider, recorded as the run's provider. */
  provider: ProviderName;
  abort: AbortController;
  /** Guideline versions (`./guidelines` by default). */
  guidelines: GuidelineStore;
  /**
   * The most rollouts the run may store (`optimize --max-rollouts`, `optimize.max_rollouts`);
   * the optimize sets it for its own run. @default no limit
   */
  maxRollouts?: number | null;
  /** Where the run's warnings go (a changed task on resume); the CLI maps them to its flags. */
  warn?: Warn;
};

/** A run id that sorts by time and is easy to type: run-20261122-031500-ab12. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const suffix = Math.random().toString(36).slice(2, 6);
  return `run-${stamp}-${suffix}`;
}

import type { TaskInfo } from '../bench/index.js';
import type { Condition } from './condition.js';
import type { RunEnv } from './env.js';
import { runRollouts, type RolloutJob, type RunRolloutsOptions } from './rollouts.js';

/** What of a run's environment its rollouts use: benchmark, LLM, store, config, Ctrl-C, limit. */
export type RolloutEnv = Pick<
  RunEnv,
  'bench' | 'llm' | 'store' | 'config' | 'abort' | 'maxRollouts' | 'warn'
>;

/**
 * {@link runRollouts} in a run's environment (its benchmark, LLM, store and config, its Ctrl-C
 * signal and its rollout limit): how every runner and stage runs its jobs; `opts` says which.
 */
export function runJobsIn(
  env: RolloutEnv,
  opts: Omit<RunRolloutsOptions, 'bench' | 'llm' | 'store' | 'config' | 'signal' | 'maxRollouts'>,
): Promise<void> {
  const warn = opts.warn ?? env.warn;
  return runRollouts({
    ...opts,
    bench: env.bench,
    llm: env.llm,
    store: env.store,
    config: env.config,
    signal: env.abort.signal,
    maxRollouts: env.maxRollouts,
    ...(warn ? { warn } : {}),
  });
}

/** Every condition on every task, condition by condition. */
export function everyPair(
  conditions: readonly Condition[],
  tasks: readonly TaskInfo[],
): RolloutJob[] {
  return conditions.flatMap((condition) => tasks.map((task) => ({ condition, task })));
}

import type { TaskInfo } from '../bench/index.js';
import type { Config } from '../config/index.js';

/**
 * The cost model of paid runs, shared by `acon optimize` (plan.ts) and `acon run`/`compare`
 * (run-conditions.ts): calls by role from the rollouts and the tasks' reference lengths, each
 * priced at assumed prompt and answer sizes with the configured models' list prices. An upper
 * estimate: no cache hits, no early drops.
 */
export type CallEstimate = { agent: number; compressor: number; analyzer: number; updater: number };

/** Mean agent prompt and answer sizes assumed by the estimate. */
const ASSUMED_PROMPT_TOKENS = 6_000;
const ASSUMED_ANSWER_TOKENS = 300;
/** Compressor calls per agent step of a compressing rollout, and their sizes. */
const COMPRESSIONS_PER_STEP = 0.5;
const ASSUMED_COMPRESSOR_PROMPT = 2_500;
const ASSUMED_COMPRESSOR_ANSWER = 500;
const ASSUMED_ANALYZER_PROMPT = 20_000;
const ASSUMED_ANALYZER_ANSWER = 600;
const ASSUMED_UPDATER_PROMPT = 8_000;
const ASSUMED_UPDATER_ANSWER = 1_000;
/** Steps assumed for a task without a reference solution. */
const DEFAULT_STEPS = 20;

/** Mean agent steps of a rollout over `tasks`: reference length ×1.2 (detours) + 1 (the answer). */
export function meanStepsOf(tasks: TaskInfo[]): number {
  const lengths = tasks.map((t) => t.referenceLength || DEFAULT_STEPS);
  const mean =
    lengths.length === 0 ? DEFAULT_STEPS : lengths.reduce((a, b) => a + b, 0) / lengths.length;
  return mean * 1.2 + 1;
}

/** Agent calls of `rollouts` rollouts, and compressor calls of the `compressing` ones among them. */
export function rolloutCalls(
  rollouts: number,
  compressing: number,
  meanSteps: number,
): Pick<CallEstimate, 'agent' | 'compressor'> {
  return {
    agent: Math.round(rollouts * meanSteps),
    compressor: Math.round(compressing * meanSteps * COMPRESSIONS_PER_STEP),
  };
}

/** USD at most for these calls at the configured models' list prices (a model without a price: $0). */
export function estimateCostUsd(calls: CallEstimate, config: Config): number {
  const price = (role: Exclude<keyof Config['roles'], 'judge'>, input: number, output: number) => {
    const p = config.prices[config.roles[role].model];
    return p ? (input * p.input + output * p.output) / 1e6 : 0;
  };
  return (
    calls.agent * price('agent', ASSUMED_PROMPT_TOKENS, ASSUMED_ANSWER_TOKENS) +
    calls.compressor *
      price('obs_compressor', ASSUMED_COMPRESSOR_PROMPT, ASSUMED_COMPRESSOR_ANSWER) +
    calls.analyzer * price('analyzer', ASSUMED_ANALYZER_PROMPT, ASSUMED_ANALYZER_ANSWER) +
    calls.updater * price('updater', ASSUMED_UPDATER_PROMPT, ASSUMED_UPDATER_ANSWER)
  );
}

import type { CompressionEvent, CallUsage, RoleUsage, RolloutMetrics } from '../domain/index.js';
import type { Price } from '../config/index.js';
import type { LlmRole } from '../llm/index.js';
import { noRoleUsage, type ConditionMetrics } from '../domain/index.js';
import { seededRandom } from '../seeded-random.js';
import { fullCallCost } from './full-cost.js';

/**
 * Every metric acon reports is defined here, once (ARCHITECTURE §4). Rollout metrics are
 * computed from the stored steps, events and LLM calls of one rollout; condition metrics
 * aggregate rollout metrics. Nothing else computes a number that is printed.
 */

/** Agent and compressor roles: the tokens a deployed agent spends (not the optimizer's). */
const ROLLOUT_ROLES = ['agent', 'obs_compressor', 'hist_compressor'];

/**
 * ACON's dependency (paper v3, Eq. 12) over the agent's calls: Σ (n_in + 2·n_out)·n_out / 2,
 * where n_in is a call's prompt tokens minus `systemTokens` (the system prompt and tool
 * definitions every call repeats, which the paper leaves out).
 */
export function dependency(
  calls: Pick<CallUsage, 'promptTokens' | 'completionTokens'>[],
  systemTokens = 0,
): number {
  return sum(
    calls.map((c) => {
      const nIn = Math.max(0, c.promptTokens - systemTokens);
      const nOut = c.completionTokens;
      return ((nIn + 2 * nOut) * nOut) / 2;
    }),
  );
}

/** Input tokens of the agent and both compressors (the paper's tie-break of candidates). */
export function totalInputTokens(m: Pick<RolloutMetrics, 'byRole'>): number {
  return sum(ROLLOUT_ROLES.map((r) => m.byRole[r]?.inputTokens ?? 0));
}

/** Input plus output tokens of the agent and both compressors. */
export function totalTokens(m: Pick<RolloutMetrics, 'byRole'>): number {
  return sum(
    ROLLOUT_ROLES.map((r) => (m.byRole[r]?.inputTokens ?? 0) + (m.byRole[r]?.outputTokens ?? 0)),
  );
}

export function rolloutMetrics(input: {
  success: boolean;
  score: number;
  /** Tokens of each agent prompt as sent (system prompt and tool definitions included). */
  stepPromptTokens: number[];
  /**
   * Tokens every agent prompt spends on the system prompt and the tool definitions; peak and
   * dependency leave them out (paper v3). @default 0
   */
  systemTokens?: number;
  events: Pick<CompressionEvent, 'kind' | 'inputTokens' | 'outputTokens' | 'failed'>[];
  calls: CallUsage[];
  wallMs: number;
  /** Prices for the full cost; without them the full cost is null. */
  prices?: Record<string, Price>;
  /** Call id → tokens its prompt shares with the previous agent prompt (prefix caching). */
  sharedPrefixTokens?: ReadonlyMap<number, number>;
  /** The evaluation's QA scores, when the benchmark answers questions. */
  qa?: { exactMatch: number; f1: number };
}): RolloutMetrics {
  const byRole: Record<string, RoleUsage> = {};
  let fullCost: number | null = input.prices ? 0 : null;
  for (const call of input.calls) {
    const full = input.prices
      ? fullCallCost(
          { ...call, sharedPrefixTokens: input.sharedPrefixTokens?.get(call.id) ?? 0 },
          input.prices,
        )
      : null;
    const u = (byRole[call.role] ??= {
      ...noRoleUsage(),
      fullCostUsd: input.prices ? 0 : null,
    });
    u.calls += 1;
    u.inputTokens += call.promptTokens;
    u.cachedTokens += call.cachedTokens;
    u.outputTokens += call.completionTokens;
    u.reasoningTokens += call.reasoningTokens;
    u.costUsd += call.costUsd;
    // One unpriced call makes the role's (and the rollout's) full cost unknown.
    u.fullCostUsd = u.fullCostUsd === null || full === null ? null : u.fullCostUsd + full;
    fullCost = fullCost === null || full === null ? null : fullCost + full;
  }
  const ok = input.events.filter((e) => !e.failed);
  return {
    success: input.success,
    score: input.score,
    steps: input.stepPromptTokens.length,
    peakInputTokens: Math.max(
      0,
      ...input.stepPromptTokens.map((t) => t - (input.systemTokens ?? 0)),
    ),
    peakPromptTokens: Math.max(0, ...input.stepPromptTokens),
    byRole,
    costUsd: sum(input.calls.map((c) => c.costUsd)),
    fullCostUsd: fullCost,
    dependency: dependency(
      input.calls.filter((c) => c.role === 'agent'),
      input.systemTokens ?? 0,
    ),
    compressionEvents: input.events.length,
    failedCompressions: input.events.length - ok.length,
    reactiveEvents: input.events.filter((e) => e.kind === 'reactive').length,
    tokensSaved: sum(ok.map((e) => Math.max(0, e.inputTokens - e.outputTokens))),
    wallMs: input.wallMs,
    ...(input.qa ? { exactMatch: input.qa.exactMatch, f1: input.qa.f1 } : {}),
  };
}

const COMPRESSOR_ROLES: LlmRole[] = ['obs_compressor', 'hist_compressor'];

export function conditionMetrics(
  condition: string,
  rollouts: RolloutMetrics[],
  opts: { seed: number; raw?: RolloutMetrics[] },
): ConditionMetrics {
  const peaks = rollouts.map((r) => r.peakInputTokens);
  const meanPeak = mean(peaks);
  const meanSteps = mean(rollouts.map((r) => r.steps));
  const cost = sum(rollouts.map((r) => r.costUsd));
  const raw = opts.raw && opts.raw.length > 0 ? opts.raw : undefined;
  const rawPeak = raw ? mean(raw.map((r) => r.peakInputTokens)) : 0;
  const rawSteps = raw ? mean(raw.map((r) => r.steps)) : 0;
  const successes = rollouts.map((r) => (r.success ? 1 : 0));
  return {
    condition,
    tasks: rollouts.length,
    accuracy: mean(successes),
    accuracyCi: bootstrapCi(successes, opts.seed, condition),
    meanPeakTokens: meanPeak,
    medianPeakTokens: median(peaks),
    meanPeakPromptTokens: meanOrNull(rollouts.map((r) => r.peakPromptTokens)),
    peakReductionVsRaw: raw && rawPeak > 0 ? 1 - meanPeak / rawPeak : null,
    meanSteps,
    stepsVsRaw: raw && rawSteps > 0 ? meanSteps / rawSteps : null,
    costPerTask: rollouts.length > 0 ? cost / rollouts.length : 0,
    fullCostPerTask: meanOrNull(rollouts.map((r) => r.fullCostUsd)),
    meanTotalTokens: mean(rollouts.map(totalTokens)),
    meanDependency: meanOrNull(rollouts.map((r) => r.dependency)),
    compressorCostShare: compressorShare(rollouts),
    eventsPerTask: mean(rollouts.map((r) => r.compressionEvents)),
    compressionEvents: sum(rollouts.map((r) => r.compressionEvents)),
    failedCompressions: sum(rollouts.map((r) => r.failedCompressions)),
    contextFallbacks: rollouts.filter((r) => r.reactiveEvents > 0).length,
    exactMatch: meanOf(rollouts.map((r) => r.exactMatch)),
    f1: meanOf(rollouts.map((r) => r.f1)),
  };
}

/**
 * The compressors' share of the cost: full costs when every rollout and role has one (what the
 * calls would cost if sent, so simulated and cached calls count), else billed costs.
 */
function compressorShare(rollouts: RolloutMetrics[]): number {
  const full = rollouts.every(
    (r) => r.fullCostUsd !== null && Object.values(r.byRole).every((u) => u.fullCostUsd !== null),
  );
  const of = (u: RoleUsage | undefined) => (full ? (u?.fullCostUsd ?? 0) : (u?.costUsd ?? 0));
  const total = sum(rollouts.flatMap((r) => ROLLOUT_ROLES.map((role) => of(r.byRole[role]))));
  const comp = sum(rollouts.flatMap((r) => COMPRESSOR_ROLES.map((role) => of(r.byRole[role]))));
  return total > 0 ? comp / total : 0;
}

/** Mean of the defined values; null when no rollout has one (not a QA benchmark). */
function meanOf(xs: (number | undefined)[]): number | null {
  const defined = xs.filter((x): x is number => x !== undefined);
  return defined.length === 0 ? null : mean(defined);
}

/** Percentile bootstrap (2,000 resamples, seeded) of the mean of 0/1 outcomes. */
export function bootstrapCi(values: number[], seed: number, label = ''): [number, number] {
  if (values.length === 0) return [0, 0];
  const random = seededRandom(seed, 'bootstrap', label);
  const n = values.length;
  const means: number[] = [];
  for (let b = 0; b < 2000; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[Math.floor(random() * n)]!;
    means.push(s / n);
  }
  means.sort((a, b) => a - b);
  return [quantile(means, 0.025), quantile(means, 0.975)];
}

export function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

export function mean(xs: number[]): number {
  return xs.length === 0 ? 0 : sum(xs) / xs.length;
}

/** Mean, or null when any value is missing (a partial mean would mislead). */
function meanOrNull(xs: (number | null)[]): number | null {
  if (xs.length === 0 || xs.some((x) => x === null)) return null;
  return mean(xs as number[]);
}

export function median(xs: number[]): number {
  return quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
}

/** Linear-interpolated quantile of an ascending array. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

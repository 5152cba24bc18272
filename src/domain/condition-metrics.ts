import { z } from 'zod';

/** One condition's metrics on one split: what every table, report and export reads (src/metrics/ computes it). */
export const ConditionMetricsSchema = z.object({
  condition: z.string(),
  tasks: z.number().int(),
  accuracy: z.number(),
  /** 95% percentile-bootstrap interval of the accuracy. */
  accuracyCi: z.tuple([z.number(), z.number()]),
  /** Mean peak (system prompt and tools excluded, paper v3). */
  meanPeakTokens: z.number(),
  medianPeakTokens: z.number(),
  /**
   * Mean peak+sys: the largest prompt actually sent, system prompt and tools included; null when
   * a rollout was stored before this metric existed.
   */
  meanPeakPromptTokens: z.number().nullable().default(null),
  /** 1 - meanPeak / meanPeak(raw); null without a raw condition to compare with. */
  peakReductionVsRaw: z.number().nullable(),
  meanSteps: z.number(),
  /** meanSteps / meanSteps(raw): trajectory elongation (seed 001); null without raw. */
  stepsVsRaw: z.number().nullable(),
  /** Billed USD per task (call-cache hits cost 0, so it depends on what ran first). */
  costPerTask: z.number(),
  /** Full USD per task (full-cost.ts); null when a rollout has none. */
  fullCostPerTask: z.number().nullable().default(null),
  /** Mean input + output tokens of the agent and both compressors per task. */
  meanTotalTokens: z.number().default(0),
  /** Mean dependency per task (paper v3 Eq. 12, in tokens²); null when a rollout has none. */
  meanDependency: z.number().nullable().default(null),
  /**
   * Share of the cost spent on the observation and history compressors: of the full cost when
   * every rollout has one per role (the billed cost is $0 under sim and for cache hits, issue
   * #24), else of the billed cost.
   */
  compressorCostShare: z.number(),
  eventsPerTask: z.number(),
  /** Compression events of the condition's rollouts, all kinds (the denominator of the failures). */
  compressionEvents: z.number().int().default(0),
  /**
   * Compressions whose compressor answer was unusable after its retries (cut at the token limit,
   * filtered, malformed): the uncompressed text was kept, so they inflate the peak (issue #54).
   */
  failedCompressions: z.number().int().default(0),
  /**
   * Rollouts that hit the model's context limit at least once and went on with a cut-down
   * prompt (a `reactive` event; for raw, its only departure from the full context).
   */
  contextFallbacks: z.number().int().default(0),
  /** QA: mean per-task exact match (each task averages its questions); null for other benchmarks. */
  exactMatch: z.number().nullable(),
  /** QA: mean per-task token F1; null for other benchmarks. */
  f1: z.number().nullable(),
  /**
   * Scenario goal completion (src/metrics/scenario.ts); present only for benchmarks whose tasks
   * form scenarios (AppWorld), where `accuracy` is the task goal completion.
   */
  sgc: z.number().optional(),
  /**
   * On the Pareto front of accuracy vs mean peak tokens among the conditions it was summarized
   * with (one split; pareto.ts); absent where no comparison was made.
   */
  pareto: z.boolean().optional(),
});
export type ConditionMetrics = z.infer<typeof ConditionMetricsSchema>;

import { z } from 'zod';
import { EvaluationSchema } from './evaluation.js';
import { RolloutMetricsSchema } from './rollout-metrics.js';

/** A finished rollout of a run as readers see it: one condition on one task, and how it went. */
export const RolloutRowSchema = z.object({
  id: z.string(),
  run_id: z.string(),
  condition: z.string(),
  task_id: z.string(),
  split: z.string(),
  strategy: z.string(),
  guideline_obs: z.string().nullable(),
  guideline_hist: z.string().nullable(),
  status: z.string(),
  success: z.boolean(),
  score: z.number(),
  steps: z.number(),
  peak_input_tokens: z.number(),
  cost_usd: z.number(),
  metrics: RolloutMetricsSchema,
  evaluation: EvaluationSchema,
  error: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string(),
  /** What the benchmark recorded beside the trajectory; null when it records nothing. */
  episode_meta: z.record(z.string(), z.unknown()).nullable(),
});
export type RolloutRow = z.infer<typeof RolloutRowSchema>;

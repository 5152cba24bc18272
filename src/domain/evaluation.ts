import { z } from 'zod';

/** What a benchmark's `evaluate()` says about one episode; stored with the rollout. */
export const EvaluationSchema = z.object({
  success: z.boolean(),
  /** Fraction of checks passed, 0..1. */
  score: z.number().min(0).max(1),
  /** Per-check results, e.g. `{name: 'answer', passed: false, detail: 'expected "3", got "4"'}`. */
  details: z.array(z.object({ name: z.string(), passed: z.boolean(), detail: z.string() })),
  /** Question answering (`--bench qa`): mean exact match and token F1 over the task's questions. */
  qa: z.object({ exactMatch: z.number().min(0).max(1), f1: z.number().min(0).max(1) }).optional(),
});
export type Evaluation = z.infer<typeof EvaluationSchema>;

import { z } from 'zod';

/**
 * A rollout the infrastructure failed (issue #31, item 10): a model call kept failing with a
 * transient error (rate limit, 5xx, timeout, reset, malformed body) through every attempt.
 * That says nothing about the task or the compressor, so it is not a task failure: it is kept
 * out of accuracy, listed with the run, and run again by `--resume`.
 */
export const InfraFailureSchema = z.object({
  condition: z.string(),
  taskId: z.string(),
  /** The id its calls are stored under (`acon runs show RUN` lists the failure). */
  rolloutId: z.string(),
  /** The last error, first line. */
  error: z.string(),
  at: z.string(),
});
export type InfraFailure = z.infer<typeof InfraFailureSchema>;

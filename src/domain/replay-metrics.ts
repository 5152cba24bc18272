import { z } from 'zod';

/**
 * What a replay measures (never accuracy: it tells whether the agent's next step changes, not
 * whether the task would still succeed):
 * - agreement: of the steps whose view was compressed, the share where the agent did what it
 *   did under full context (null when no step was compressed);
 * - probe recall: of the values the trajectory used later, the share still in view at the step
 *   that used them;
 * - peak tokens: the mean over conversations of the largest view sent, beside full context's;
 * - compressions and failed compressions: the compressor events of the replay.
 */
export const ReplayMetricsSchema = z.object({
  traces: z.number().int(),
  steps: z.number().int(),
  compressedSteps: z.number().int(),
  agreeingSteps: z.number().int(),
  agreement: z.number().nullable(),
  probes: z.number().int(),
  probesKept: z.number().int(),
  probeRecall: z.number().nullable(),
  peakTokens: z.number(),
  fullPeakTokens: z.number(),
  compressions: z.number().int(),
  failedCompressions: z.number().int(),
});
export type ReplayMetrics = z.infer<typeof ReplayMetricsSchema>;

import { z } from 'zod';

/** One time a context strategy changed what the agent sees; stored with the rollout. */
export const CompressionEventSchema = z.object({
  kind: z.enum(['obs', 'hist', 'summary', 'mask', 'fifo', 'retrieval', 'reactive']),
  /** Agent step (0-based) whose prompt this event shaped. */
  step: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** What the compressor was given and what it produced (empty for masking/fifo/retrieval). */
  input: z.string(),
  output: z.string(),
  guidelineId: z.string().nullable(),
  callId: z.number().int().nullable(),
  /** The compressor's output was unusable after retries; the uncompressed text was kept. */
  failed: z.boolean(),
  /** Why the last attempt of a failed compression was unusable (e.g. cut off at the token limit). */
  failureReason: z.string().optional(),
});
export type CompressionEvent = z.infer<typeof CompressionEventSchema>;

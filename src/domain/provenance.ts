import { z } from 'zod';

/**
 * Who produced a run's numbers: the agent's provider, the `provider/model` of each role, and
 * whether the offline sim answered (every result and stored run says so).
 */
export const ProducerShape = {
  provider: z.string(),
  models: z.record(z.string(), z.string()),
  simulated: z.boolean(),
};

/** What the numbers' tokens were counted in. */
export const TokenizerShape = {
  /** The encoding peaks and thresholds were counted in; absent in runs stored before it was named. */
  tokenizer: z.string().optional(),
  /**
   * With `tokenizer: server`: of the distinct texts this process counted, those the server did
   * not count (not asked, or its answer failed), counted in o200k instead.
   */
  tokenizerEstimates: z
    .object({ estimated: z.number().int(), counted: z.number().int() })
    .optional(),
};

/** Who produced the numbers; printed above every result table (ARCHITECTURE §4). */
export const ProvenanceSchema = z.object({
  runId: z.string(),
  bench: z.string(),
  split: z.string(),
  ...ProducerShape,
  ...TokenizerShape,
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

import { z } from 'zod';

/** Who produced the numbers; printed above every result table (ARCHITECTURE §4). */
export const ProvenanceSchema = z.object({
  runId: z.string(),
  bench: z.string(),
  split: z.string(),
  provider: z.string(),
  models: z.record(z.string(), z.string()),
  simulated: z.boolean(),
  /** The encoding peaks and thresholds were counted in; absent in runs stored before it was named. */
  tokenizer: z.string().optional(),
  /**
   * With `tokenizer: server`: of the distinct texts this process counted, those the server did
   * not count (not asked, or its answer failed), counted in o200k instead.
   */
  tokenizerEstimates: z
    .object({ estimated: z.number().int(), counted: z.number().int() })
    .optional(),
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

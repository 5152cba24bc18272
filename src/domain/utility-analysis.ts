import { z } from 'zod';

// What the analyzer LLM answers in the utility phase (seed 003; issue 6).

export const FactSchema = z.object({
  /** The fact in words, with its value: "playlist id 48213 of 'Road Trip'". */
  fact: z.string().min(1),
  /** The JSON key (or label) it appeared under in the observation: `id`, `access_token`. */
  field: z.string(),
  /** Step of the full-context run whose observation held it; null when unknown. */
  source_step: z.number().int().nonnegative().nullable(),
});
export type Fact = z.infer<typeof FactSchema>;

export const DistortedFactSchema = FactSchema.extend({
  /** What the compressed context said (or what the agent used) instead. */
  seen_as: z.string(),
});
export type DistortedFact = z.infer<typeof DistortedFactSchema>;

/** Utility-phase analysis of one contrastive pair (full context succeeded, compressed did not). */
export const UtilityAnalysisSchema = z.object({
  first_divergence: z.object({
    /** First step where the compressed run acted differently; null when the actions never differ. */
    step: z.number().int().nonnegative().nullable(),
    description: z.string().min(1),
  }),
  missing_facts: z.array(FactSchema),
  distorted_facts: z.array(DistortedFactSchema),
  /** State the agent lost track of (credentials, progress, intermediate results). */
  lost_state: z.array(z.string()),
  /** What the guideline should say so that this does not happen again. */
  remediation: z.string().min(1),
});
export type UtilityAnalysis = z.infer<typeof UtilityAnalysisSchema>;

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

/**
 * Why the compressed run failed, in one word (the paper's analyses name the mechanism):
 * `missing_information` a needed fact was dropped; `distorted_information` a fact was altered;
 * `lost_progress` the agent lost track of what it had done (repeated or skipped steps);
 * `lost_state` credentials or intermediate results were lost; `summary_inaccuracy` the summary
 * stated something false; `not_compression` the failure does not come from the compression.
 */
export const RootCauseSchema = z.enum([
  'missing_information',
  'distorted_information',
  'lost_progress',
  'lost_state',
  'summary_inaccuracy',
  'not_compression',
]);
export type RootCause = z.infer<typeof RootCauseSchema>;

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
  /**
   * Statements of the compressed context (a summary above all) that contradict the full run:
   * wrong progress, wrong values, invented facts. Older analyses have none.
   */
  summary_inaccuracies: z.array(z.string()).default([]),
  /** The root-cause category; older analyses have none. */
  root_cause: RootCauseSchema.nullable().default(null),
  /** What the guideline should say so that this does not happen again. */
  remediation: z.string().min(1),
});
export type UtilityAnalysis = z.infer<typeof UtilityAnalysisSchema>;

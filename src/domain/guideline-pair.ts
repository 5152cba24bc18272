import { z } from 'zod';
import { GuidelineTextSchema } from './guideline-text.js';

/** The guideline pair the `acon` and `naive` strategies compress with: P_obs and P_hist. */
export const GuidelinePairSchema = z.object({
  obs: GuidelineTextSchema,
  hist: GuidelineTextSchema,
});
export type GuidelinePair = z.infer<typeof GuidelinePairSchema>;

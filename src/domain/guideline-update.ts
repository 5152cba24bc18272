import { z } from 'zod';

/** Hard limit on a guideline's text; generated text is checked against it before use. */
export const GUIDELINE_MAX_CHARS = 8_000;

/**
 * The updater's answer: the whole new guideline and why. The length limit is the guideline
 * store's; the updater prompts ask for half of it, to leave room.
 */
export const GuidelineUpdateSchema = z.object({
  guideline: z.string().trim().min(1).max(GUIDELINE_MAX_CHARS),
  rationale: z.string().min(1),
});
export type GuidelineUpdate = z.infer<typeof GuidelineUpdateSchema>;

import { z } from 'zod';

/** A guideline as compressors and strategies use it: its version id and its text. */
export const GuidelineTextSchema = z.object({ id: z.string(), text: z.string() });
export type GuidelineText = z.infer<typeof GuidelineTextSchema>;

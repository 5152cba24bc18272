import { z } from 'zod';

/** Compression-phase analysis of one successful compressed trajectory. */
export const CompressionAnalysisSchema = z.object({
  /** Fields the compressor kept that the agent never used afterwards. */
  unused_fields: z.array(z.string()),
  /** Other kept content that was never used (boilerplate, long texts), described briefly. */
  unused_content: z.array(z.string()),
  /** Fields the agent did use afterwards: they must stay. */
  needed_fields: z.array(z.string()),
  remediation: z.string().min(1),
});
export type CompressionAnalysis = z.infer<typeof CompressionAnalysisSchema>;

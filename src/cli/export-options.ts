import { z } from 'zod';

// The number options of `acon export` and `acon lint`, imported when one runs: zod stays out of
// the CLI's start-up (issue #28).

/** A number option: commander hands strings over; the message names the flag and the value. */
const num = (flag: string, schema: z.ZodNumber) =>
  z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined) return undefined;
      const r = schema.safeParse(Number(s));
      if (!r.success || s.trim() === '') {
        ctx.addIssue({
          code: 'custom',
          message: `${flag} ${r.error?.issues[0]?.message ?? 'must be a number'}, got "${s}"`,
        });
        return z.NEVER;
      }
      return r.data;
    });

const MaxTokensSchema = z.number().int('must be a whole number').positive('must be ≥ 1');

/** The number options of `acon export`. */
export const ExportCliSchema = z.object({
  valRatio: num('--val-ratio', z.number().min(0, 'must be ≥ 0').max(0.9, 'must be ≤ 0.9')),
  maxTokens: num('--max-tokens', MaxTokensSchema),
  seed: num('--seed', z.number().int('must be a whole number')),
});

/** `acon lint --max-tokens`. */
export const LintMaxTokensSchema = num('--max-tokens', MaxTokensSchema);

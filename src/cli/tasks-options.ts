import { z } from 'zod';
import { UsageError } from './usage-error.js';

// The options of `acon tasks list|show`, imported when one runs: zod stays out of the CLI's
// start-up (issue #28).

export const BenchOptionsSchema = z.object({
  bench: z.string(),
  tasksDir: z.string().optional(),
  qaData: z.string().optional(),
  json: z.boolean().optional(),
  config: z.string().optional(),
});
export type BenchOptions = z.infer<typeof BenchOptionsSchema>;

export const ListOptionsSchema = BenchOptionsSchema.extend({
  split: z.string().min(1).optional(),
  wide: z.boolean().optional(),
});

export function parseOptions<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = `--${String(issue?.path[0] ?? '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new UsageError(`${flag}: ${issue?.message ?? 'invalid value'}`);
  }
  return parsed.data;
}

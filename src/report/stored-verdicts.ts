import { z } from 'zod';
import type { ConditionMetrics } from '../domain/index.js';
import { conditionsVerdict, verdictLine, versionVerdictRows } from '../metrics/index.js';

/**
 * The names and verdict lines the terminal printed for a stored run, for views that read the run
 * later (the HTML report; issue #58: the report said `acon[obs-0005,hist-0004]` where the CLI
 * said `UTCO both`, and had no verdict). An optimize run's final tables are in its summary, as
 * `acon optimize` printed them; a run or compare is judged from its metrics, as it was then.
 */
export type StoredVerdicts = {
  /** `split\u0000condition` → the name the CLI gave the row; conditions not listed keep their label. */
  names: Map<string, string>;
  verdicts: { split: string; line: string }[];
};

const TableRowSchema = z.object({
  version: z.string(),
  condition: z.string(),
  accuracy: z.number(),
  accuracyCi: z.tuple([z.number(), z.number()]),
  meanPeakTokens: z.number(),
  tasks: z.number(),
  // Stored since issue #54; absent in older runs (the verdict then has no failure notes).
  failedCompressions: z.number().optional(),
  compressionEvents: z.number().optional(),
  contextFallbacks: z.number().optional(),
});
const OptimizeSummarySchema = z.object({
  tables: z.array(z.object({ split: z.string(), rows: z.array(TableRowSchema) })),
  final: z.object({ obs: z.string(), hist: z.string() }),
});

export const nameKey = (split: string, condition: string) => `${split}\u0000${condition}`;

/** The label of the condition the final guidelines were deployed as (one compressor or both). */
function finalLabel(final: { obs: string; hist: string }, target: unknown): string {
  if (target === 'obs') return `acon[${final.obs},-]`;
  if (target === 'hist') return `acon[-,${final.hist}]`;
  return `acon[${final.obs},${final.hist}]`;
}

export function storedVerdicts(
  run: { kind: string; params: Record<string, unknown>; summary: unknown },
  conditions: (ConditionMetrics & { split: string })[],
): StoredVerdicts {
  const names = new Map<string, string>();
  const summary = run.kind === 'optimize' ? OptimizeSummarySchema.safeParse(run.summary) : null;
  if (summary?.success) {
    const label = finalLabel(summary.data.final, run.params.target);
    const verdicts = summary.data.tables.map((t) => {
      const rows = versionVerdictRows(t.rows, label);
      for (const row of rows) names.set(nameKey(t.split, row.condition), row.name);
      return { split: t.split, line: verdictLine(t.split, rows, label) };
    });
    return { names, verdicts };
  }
  const splits = [...new Set(conditions.map((c) => c.split))];
  return {
    names,
    verdicts: splits.map((split) => ({
      split,
      line: conditionsVerdict(
        split,
        conditions.filter((c) => c.split === split),
      ),
    })),
  };
}

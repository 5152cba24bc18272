import { z } from 'zod';
import { RunRowSchema, type RunRow } from '../domain/index.js';
import { fitTable, wrapNotes, type Column, type FitOptions } from './fit-table.js';
import { modelsText, pct1 } from './table.js';

/** Accuracy of one condition of a run, from its stored rollouts. */
export const ConditionCountSchema = z.object({
  /** Accuracy is per split: train, dev and test are never pooled (issue #24). */
  split: z.string(),
  condition: z.string(),
  rollouts: z.number().int(),
  successes: z.number().int(),
  accuracy: z.number(),
});

/** What every view of a run starts with: what it is and what it ran with (but its config). */
export const RUN_HEADER = {
  id: true,
  kind: true,
  command: true,
  bench: true,
  provider: true,
  models: true,
  simulated: true,
} as const;

/** One element of `acon runs --json`. */
export const RunListItemSchema = RunRowSchema.pick({
  ...RUN_HEADER,
  params: true,
  status: true,
  summary: true,
  created_at: true,
  finished_at: true,
}).extend({
  conditions: z.array(ConditionCountSchema),
  /**
   * Rollouts the infrastructure lost and no resume has run again yet (issue #31): not counted in
   * `conditions`; `acon runs show RUN` lists them, `--resume RUN` runs them again.
   */
  infraFailures: z.number().int().default(0),
});
export type RunListItem = z.infer<typeof RunListItemSchema>;
export const RunsListSchema = z.array(RunListItemSchema);

export function runListItems(
  runs: RunRow[],
  counts: {
    runId: string;
    split: string;
    condition: string;
    rollouts: number;
    successes: number;
  }[],
  /** A run's infrastructure failures still listed (experiment/infra-failures.ts). */
  infraFailuresOf: (runId: string) => number = () => 0,
): RunListItem[] {
  return runs.map(({ config: _config, owner: _owner, ...r }) => ({
    ...r,
    infraFailures: infraFailuresOf(r.id),
    conditions: counts
      .filter((c) => c.runId === r.id)
      .map((c) => ({
        split: c.split,
        condition: c.condition,
        rollouts: c.rollouts,
        successes: c.successes,
        accuracy: c.rollouts > 0 ? c.successes / c.rollouts : 0,
      })),
  }));
}

/**
 * The models column: `sim` for a run whose every role is simulated (a priced-as model name there
 * would read as if that model ran, issue #24); else the distinct models.
 */
function listedModels(models: Record<string, string>): string {
  const all = Object.values(models);
  return all.length > 0 && all.every((m) => m.startsWith('sim/')) ? 'sim' : modelsText(models);
}

const COLUMNS: Column<RunListItem>[] = [
  { key: 'id', label: 'run', value: (r) => r.id },
  { key: 'kind', label: 'kind', value: (r) => r.kind },
  // Never dropped: runs of different benchmarks are not comparable (issue #24).
  { key: 'bench', label: 'bench', value: (r) => r.bench },
  {
    key: 'models',
    label: 'models',
    note: 'provider/model of each role; * SIMULATED: the offline sim provider, no model ran (runs show names the models its calls are priced as)',
    value: (r) => `${listedModels(r.models)}${r.simulated ? '*' : ''}`,
  },
  {
    key: 'status',
    label: 'status',
    value: (r) => (r.infraFailures > 0 ? `${r.status} +${r.infraFailures} lost` : r.status),
  },
  {
    key: 'created_at',
    label: 'created',
    value: (r) => r.created_at.slice(0, 16).replace('T', ' '),
    priority: 4,
  },
  {
    key: 'conditions',
    label: 'accuracy % (n)',
    note: 'per split and condition, successes of its n rollouts (splits never pooled)',
    value: (r) => (r.conditions.length === 0 ? '—' : accuracyText(r.conditions)),
    flex: true,
    minWidth: 30,
  },
];

export function runsListTable(items: RunListItem[], opts: FitOptions = {}): string {
  if (items.length === 0)
    return 'no runs stored yet; start one with `acon compare --bench apptown`\n';
  const limit = opts.wide ? Number.POSITIVE_INFINITY : (opts.width ?? 100);
  const { text, notes } = fitTable(items, COLUMNS, opts);
  const lost = items.some((r) => r.infraFailures > 0)
    ? [
        '+N lost = N rollouts the infrastructure lost, not in accuracy; runs show lists them, --resume runs them again',
      ]
    : [];
  const foot = wrapNotes([...notes, ...lost, 'drill down: acon runs show <run>'], limit);
  return `${text}${foot.join('\n')}\n`;
}

/** `test: raw 85.0 (40); dev: raw 86.1 (36) · naive 40.0 (36)`: one group per split. */
function accuracyText(conditions: RunListItem['conditions']): string {
  const splits = [...new Set(conditions.map((c) => c.split))].sort(
    (a, b) => splitRank(a) - splitRank(b),
  );
  return splits
    .map((split) => {
      const here = conditions.filter((c) => c.split === split);
      const list = here.map((c) => `${c.condition} ${pct1(c.accuracy)} (${c.rollouts})`);
      return `${split}: ${list.join(' · ')}`;
    })
    .join('; ');
}

/**
 * Held-out splits lead: an optimize's result is its test table, and its train rollouts (the
 * teacher's, or the contrastive raw runs) come last (issue #58: `runs` used to open with
 * `train: raw 100.0 (1)`).
 */
function splitRank(split: string): number {
  if (split.startsWith('test')) return 0;
  if (split === 'train') return 2;
  return 1;
}

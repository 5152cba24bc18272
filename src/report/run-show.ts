import { z } from 'zod';
import { InvalidInputError } from '../errors.js';
import {
  InfraFailureSchema,
  type InfraFailure,
  type RolloutRow,
  type RunRow,
  RunRowSchema,
} from '../domain/index.js';
import { infraFailureLines } from './infra-failures-view.js';
import {
  ROLE_COST_DEFINITIONS as COST_DEF,
  ROLLOUT_METRIC_DEFINITIONS as ROLLOUT_DEF,
} from '../metrics/index.js';
import { fitTable, wrapLine, wrapNotes, type Column, type FitOptions } from './fit-table.js';
import { int, modelsText, SIMULATED_NOTE, usd } from './table.js';
import { RUN_HEADER } from './runs-list.js';

/** One rollout as `acon runs show` lists it (and as its `--json` prints it). */
export const RolloutSummarySchema = z.object({
  id: z.string(),
  condition: z.string(),
  taskId: z.string(),
  split: z.string(),
  success: z.boolean(),
  score: z.number(),
  status: z.string().describe('completed | max_steps | error'),
  steps: z.number().int(),
  peakInputTokens: z.number().int(),
  costUsd: z.number(),
  /** USD as if every call were sent (metrics.ts); null when a model has no price. */
  fullCostUsd: z.number().nullable().default(null),
  compressionEvents: z.number().int(),
  /** Why it failed: the failed evaluation checks, else the error, else the stop reason. */
  reason: z.string().nullable(),
});
export type RolloutSummary = z.infer<typeof RolloutSummarySchema>;

/** The run record without its config (which can be long; `acon runs --json` has it too). */
export const RunInfoSchema = RunRowSchema.pick(RUN_HEADER).extend({
  status: z.string(),
  createdAt: RunRowSchema.shape.created_at,
  finishedAt: RunRowSchema.shape.finished_at,
});
export type RunInfo = z.infer<typeof RunInfoSchema>;

/** Calls, tokens and billed USD of one role over the whole run (cost-by-role.ts). */
export const RoleCostSchema = z.object({
  role: z.string(),
  calls: z.number().int(),
  inputTokens: z.number().int(),
  /** Of the input tokens, those the provider served from its prompt cache (billed at cached_input). */
  cachedTokens: z.number().int(),
  /** Output tokens as billed: a reasoning model's reasoning tokens are part of them. */
  outputTokens: z.number().int(),
  /** Of the output tokens, a reasoning model's reasoning tokens (`completion_tokens_details`). */
  reasoningTokens: z.number().int(),
  costUsd: z.number(),
});
export type RoleCost = z.infer<typeof RoleCostSchema>;

/** `acon runs show RUN --json`: the run and one element per (filtered) rollout. */
export const RunShowSchema = z.object({
  run: RunInfoSchema,
  filters: z.object({
    failed: z.boolean(),
    condition: z.string().nullable(),
    task: z.string().nullable(),
  }),
  rollouts: z.array(RolloutSummarySchema),
  /** Every call of the run by role, whatever the filters (issue #54). Absent: not computed. */
  costByRole: z.array(RoleCostSchema).optional(),
  /** Rollouts the infrastructure failed: not stored as rollouts, run again by --resume. Absent: none. */
  infraFailures: z.array(InfraFailureSchema).optional(),
});
export type RunShow = z.infer<typeof RunShowSchema>;

export type RunShowFilters = RunShow['filters'];

export function runInfo(r: RunRow): RunInfo {
  const { id, kind, command, bench, provider, models, simulated, status } = r;
  const times = { createdAt: r.created_at, finishedAt: r.finished_at };
  return { id, kind, command, bench, provider, models, simulated, status, ...times };
}

/** Why a rollout failed, in one line: its failed checks (`answer: expected "3", got "4"`). */
export function failureReason(r: RolloutRow): string | null {
  if (r.success) return null;
  // A rollout cut by the step limit says so first: its checks alone ("complete_task: never
  // called") would not tell a lost value from a run that was stopped (issue #58).
  const stopped =
    r.status === 'max_steps'
      ? [`stopped at the step limit (${r.steps} steps, agent.max_steps)`]
      : [];
  const failed = r.evaluation.details.filter((d) => !d.passed);
  if (failed.length > 0)
    return [...stopped, ...failed.map((d) => `${d.name}: ${d.detail}`)].join('; ');
  if (r.error) return [...stopped, r.error].join('; ');
  if (stopped.length > 0) return stopped[0]!;
  return r.status === 'completed' ? 'evaluation failed' : r.status;
}

export function summarizeRollout(r: RolloutRow): RolloutSummary {
  return {
    id: r.id,
    condition: r.condition,
    taskId: r.task_id,
    split: r.split,
    success: r.success,
    score: r.score,
    status: r.status,
    steps: r.steps,
    peakInputTokens: r.peak_input_tokens,
    costUsd: r.cost_usd,
    fullCostUsd: r.metrics.fullCostUsd,
    compressionEvents: r.metrics.compressionEvents,
    reason: failureReason(r),
  };
}

/** Filters match exactly: a condition label, a task id; `failed` keeps only failures. */
export function runShow(
  run: RunRow,
  rows: RolloutRow[],
  filters: RunShowFilters,
  infra: readonly InfraFailure[] = [],
  costs?: readonly RoleCost[],
): RunShow {
  checkFilter('condition', filters.condition, [
    ...rows.map((r) => r.condition),
    ...infra.map((f) => f.condition),
  ]);
  checkFilter('task', filters.task, [...rows.map((r) => r.task_id), ...infra.map((f) => f.taskId)]);
  const keep = rows.filter(
    (r) =>
      (!filters.failed || !r.success) &&
      (filters.condition === null || r.condition === filters.condition) &&
      (filters.task === null || r.task_id === filters.task),
  );
  const infraFailures = infra.filter(
    (f) =>
      (filters.condition === null || f.condition === filters.condition) &&
      (filters.task === null || f.taskId === filters.task),
  );
  const rollouts = keep.map(summarizeRollout);
  const costByRole = costs ? { costByRole: costs.map((c) => RoleCostSchema.parse(c)) } : {};
  return infraFailures.length > 0
    ? { run: runInfo(run), filters, rollouts, ...costByRole, infraFailures }
    : { run: runInfo(run), filters, rollouts, ...costByRole };
}

/** A filter value the run does not have is an error listing the ones it has (exit 2), never "0 rollouts". */
function checkFilter(what: string, value: string | null, present: string[]): void {
  const valid = [...new Set(present)];
  if (value !== null && !valid.includes(value)) {
    throw InvalidInputError.unknown(what, value, valid, `the ${what}s of this run`);
  }
}

/** Rollout ids are UUIDs; the first 8 characters are unique in practice and `rollout show` takes them. */
export const shortId = (id: string) => id.slice(0, 8);

const COLUMNS: Column<RolloutSummary>[] = [
  { key: 'id', label: 'rollout', value: (r) => shortId(r.id) },
  // Never dropped: without it a compare run's rows cannot be told apart (issue #24).
  { key: 'condition', label: 'condition', value: (r) => r.condition },
  { key: 'taskId', label: 'task', value: (r) => r.taskId },
  {
    key: 'success',
    label: 'ok',
    note: '✓ success, ✗ failure',
    value: (r) => (r.success ? '✓' : '✗'),
  },
  {
    key: 'steps',
    label: 'steps',
    note: ROLLOUT_DEF.steps,
    value: (r) => String(r.steps),
    align: 'right',
    priority: 6,
  },
  {
    key: 'peakInputTokens',
    label: 'peak',
    note: ROLLOUT_DEF.peakInputTokens,
    value: (r) => int(r.peakInputTokens),
    align: 'right',
    priority: 7,
  },
  {
    key: 'costUsd',
    label: 'cost',
    note: ROLLOUT_DEF.costUsd,
    value: (r) => usd(r.costUsd),
    align: 'right',
    priority: 3,
  },
  {
    key: 'compressionEvents',
    label: 'ev',
    note: ROLLOUT_DEF.compressionEvents,
    value: (r) => String(r.compressionEvents),
    align: 'right',
    priority: 2,
  },
  {
    key: 'reason',
    label: 'failure reason',
    value: (r) => r.reason ?? '',
    flex: true,
    minWidth: 36,
  },
];

/** The drill-down table of `acon runs show`, with the run's provenance above it. */
export function runShowTable(show: RunShow, opts: FitOptions = {}): string {
  const limit = opts.wide ? Number.POSITIVE_INFINITY : (opts.width ?? 100);
  const r = show.run;
  const models = modelsText(r.models);
  const head = [
    `${r.simulated ? 'SIMULATED — ' : ''}run ${r.id} · ${r.kind} · ${r.bench} · ${r.status}`,
    `provider ${r.provider} · models ${models}`,
  ].flatMap((l) => wrapLine(l, limit));
  const ok = show.rollouts.filter((x) => x.success).length;
  const count = `${show.rollouts.length} rollouts shown, ${ok} succeeded, ${show.rollouts.length - ok} failed`;
  const infra = infraFailureLines(
    show.infraFailures ?? [],
    `acon ${r.kind} --resume ${r.id}`,
    limit,
  );
  if (show.rollouts.length === 0) return `${[...head, count].join('\n')}\n${infra}`;
  const { text, notes } = fitTable(show.rollouts, COLUMNS, opts);
  const full = fullReasons(show.rollouts, text, limit);
  const foot = wrapNotes(
    [...notes, 'open one: acon rollout show <rollout> (a prefix of the id is enough)'],
    limit,
  );
  if (r.simulated) foot.push(...wrapLine(SIMULATED_NOTE, limit));
  const costs = costTable(show.costByRole ?? [], opts);
  return `${[...head, text.trimEnd(), count, ...full].join('\n')}\n${infra}${foot.join('\n')}\n${costs}`;
}

const COST_COLUMNS: Column<RoleCost>[] = [
  { key: 'role', label: 'role', value: (c) => c.role },
  { key: 'calls', label: 'calls', value: (c) => int(c.calls), align: 'right' },
  { key: 'inputTokens', label: 'input', value: (c) => int(c.inputTokens), align: 'right' },
  {
    key: 'cachedTokens',
    label: 'cached',
    note: COST_DEF.cachedTokens,
    value: (c) => int(c.cachedTokens),
    align: 'right',
  },
  {
    key: 'outputTokens',
    label: 'output',
    note: COST_DEF.outputTokens,
    value: (c) => int(c.outputTokens),
    align: 'right',
  },
  {
    key: 'reasoningTokens',
    label: 'reasoning',
    note: COST_DEF.reasoningTokens,
    value: (c) => int(c.reasoningTokens),
    align: 'right',
  },
  { key: 'costUsd', label: 'billed$', value: (c) => usd(c.costUsd), align: 'right' },
];

/** Cost by role of the whole run, under the rollouts (empty without calls). */
function costTable(costs: readonly RoleCost[], opts: FitOptions): string {
  if (costs.length === 0) return '';
  const { text, notes } = fitTable([...costs], COST_COLUMNS, opts);
  const limit = opts.wide ? Number.POSITIVE_INFINITY : (opts.width ?? 100);
  return `\ncost by role (every call of the run, whatever the filters)\n${text.trimEnd()}\n${wrapNotes(notes, limit).join('\n')}\n`;
}

/**
 * The reasons the table had to shorten, in full and wrapped under the table (issue #24: a cut
 * reason such as "1 row(s) added wher…" hides what went wrong).
 */
function fullReasons(rows: RolloutSummary[], table: string, limit: number): string[] {
  // Row i is the table's line i + 2 (under the header and its rule).
  const lines = table.split('\n');
  const cut = rows.filter((r, i) => r.reason !== null && !lines[i + 2]!.includes(r.reason));
  if (cut.length === 0) return [];
  const hang = ' '.repeat(10);
  return [
    'failure reasons in full:',
    ...cut.flatMap((r) =>
      wrapLine(r.reason!, limit - hang.length).map((l, i) =>
        i === 0 ? `${shortId(r.id).padEnd(8)}  ${l}` : `${hang}${l}`,
      ),
    ),
  ];
}

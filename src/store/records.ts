import { z } from 'zod';
import {
  type CompressionEvent,
  type StepRecord,
  type Trajectory,
  EvaluationSchema,
  type Evaluation,
  RolloutMetricsSchema,
  type CallUsage,
  type RolloutMetrics,
  type RolloutRow,
  RolloutRowSchema,
  type RunRow,
  RunRowSchema,
} from '../domain/index.js';
import { decompress } from './document.js';

/** The records the run store reads and writes, and the zod schemas of its rows. */

/** A JSON text column holding `schema`'s data. */
const json = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((s) => JSON.parse(s) as unknown)
    .pipe(schema);

/** SQLite has no boolean column: 0 or 1. */
const sqliteBoolean = z.number().transform((n) => n === 1);

const StoredRunSchema = RunRowSchema.omit({ owner: true }).extend({
  models: json(RunRowSchema.shape.models),
  simulated: sqliteBoolean,
  params: json(RunRowSchema.shape.params),
  config: json(RunRowSchema.shape.config),
  summary: json(z.unknown()).nullable(),
  owner_pid: z.number().nullable(),
  owner_host: z.string().nullable(),
  heartbeat_at: z.number().nullable(),
});

/** A runs-table row as the domain's RunRow (status as stored; SqliteRunStore also checks the owner). */
export const StoredRunRowSchema = StoredRunSchema.transform(
  ({ owner_pid, owner_host, heartbeat_at, ...row }): RunRow => ({
    ...row,
    owner: { pid: owner_pid, host: owner_host, heartbeatAt: heartbeat_at },
  }),
);

/** The domain's row as the columns hold it (keys in column order: ROLLOUT_COLUMNS). */
const StoredRolloutSchema = RolloutRowSchema.extend({
  success: sqliteBoolean,
  metrics: json(RolloutMetricsSchema),
  /** JSON, brotli-compressed since schema 5 (text before): decoded when first read. */
  evaluation: z.union([z.string(), z.instanceof(Buffer)]),
  /** Null for rollouts of benchmarks that record nothing (and of databases before it existed). */
  episode_meta: json(z.record(z.string(), z.unknown())).nullable().default(null),
});
/** The columns a RolloutRow is read from (not the row's number and document). */
export const ROLLOUT_COLUMNS = Object.keys(StoredRolloutSchema.shape).join(', ');

/** True when two types are the same; else `never`, so the check below fails to compile. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
/** The stored columns read are the domain's RolloutRow, but for the evaluation (decoded on use). */
export const STORED_ROLLOUT_IS_ROLLOUT_ROW: Same<
  Omit<z.output<typeof StoredRolloutSchema>, 'evaluation'>,
  Omit<RolloutRow, 'evaluation'>
> = true;

/** Where a row keeps its stored evaluation, and then its parsed value (not enumerable). */
const STORED_EVALUATION = Symbol('stored evaluation');
type StoredEvaluation = { [STORED_EVALUATION]: string | Buffer | Evaluation };

/** One getter for every row, so all rows share one shape (fast properties). */
const EVALUATION: PropertyDescriptor = {
  enumerable: true,
  get(this: StoredEvaluation): Evaluation {
    const v = this[STORED_EVALUATION];
    if (typeof v !== 'string' && !Buffer.isBuffer(v)) return v;
    const parsed = EvaluationSchema.parse(JSON.parse(typeof v === 'string' ? v : decompress(v)));
    this[STORED_EVALUATION] = parsed;
    return parsed;
  },
};

/** A rollouts-table row; its evaluation is parsed when first read (readers need few). */
export function rolloutRow(raw: unknown): RolloutRow {
  const { evaluation, error, started_at, finished_at, episode_meta, ...row } =
    StoredRolloutSchema.parse(raw);
  Object.defineProperty(row, STORED_EVALUATION, { value: evaluation, writable: true });
  const out = Object.defineProperty(row, 'evaluation', EVALUATION) as RolloutRow;
  return Object.assign(out, { error, started_at, finished_at, episode_meta });
}

/** What a run is created with; the store adds its status, times and owner. */
export type NewRun = Pick<
  RunRow,
  'id' | 'kind' | 'command' | 'bench' | 'provider' | 'models' | 'simulated' | 'params' | 'config'
>;

export type FinishedRollout = {
  id: string;
  runId: string;
  condition: string;
  taskId: string;
  split: string;
  strategy: string;
  guidelineObs: string | null;
  guidelineHist: string | null;
  status: string;
  evaluation: Evaluation;
  metrics: RolloutMetrics;
  trajectory: Trajectory;
  steps: StepRecord[];
  events: CompressionEvent[];
  error: string | null;
  startedAt: string;
  finishedAt: string;
  /** Episode.meta(): what the benchmark records beside the trajectory. */
  episodeMeta?: Record<string, unknown> | null;
};

export const GuidelineVersionRowSchema = z.object({
  id: z.string(),
  kind: z.enum(['obs', 'hist']),
  parent: z.string().nullable(),
  phase: z.string(),
  runId: z.string().nullable(),
  status: z.string(),
  path: z.string(),
  text: z.string(),
  metrics: json(z.record(z.string(), z.unknown())),
  createdAt: z.string(),
});
export type GuidelineVersionRow = z.output<typeof GuidelineVersionRowSchema>;

/** Rollouts and successes of one condition on one split of a run (`acon runs`). */
export type ConditionCount = {
  runId: string;
  split: string;
  condition: string;
  rollouts: number;
  successes: number;
};

/** LLM calls of one role in a run: calls, tokens and cost (the report's cost-by-role view). */
export type RoleUsageRow = {
  role: string;
  calls: number;
  inputTokens: number;
  /** Of the input tokens, those the provider reported as served from its prompt cache. */
  cachedTokens: number;
  outputTokens: number;
  /** Of the output tokens, a reasoning model's reasoning tokens. */
  reasoningTokens: number;
  costUsd: number;
};

/** One recorded LLM call with its request and response as JSON texts. */
export type LlmCallRow = CallUsage & {
  runId: string;
  rolloutId: string | null;
  taskId: string | null;
  step: number | null;
  provider: string;
  requestHash: string;
  /** JSON of the request as it was recorded (messages, tools, model, sampling). */
  request: string;
  /** JSON of the provider response; null when the call failed. */
  response: string | null;
  latencyMs: number;
  cached: boolean;
  error: string | null;
  createdAt: string;
};

/** Which calls `calls()` selects; every given field must match. */
export type CallFilter = { runId?: string; rolloutId?: string; role?: string };

/** Documents stored, their bytes on disk, and their bytes decompressed. */
export type StorageStats = { documents: number; storedBytes: number; textBytes: number };

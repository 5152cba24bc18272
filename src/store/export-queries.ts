import type Database from 'better-sqlite3';
import { z } from 'zod';
import type { BlobStore } from './blobs.js';
import { keyOf, requestFromParts, responseFromParts, type UsageColumns } from './codec.js';

/**
 * Which rollouts of the run are exported: by condition label or strategy name (null: all), by
 * benchmark split of the task (null: all), and by the guideline versions they ran with (per
 * column; null: any).
 */
export type RolloutFilter = {
  run: string;
  llmRole: string;
  conditions: readonly string[] | null;
  splits?: readonly string[] | null;
  guidelines?: GuidelineFilter | null;
};
export type GuidelineFilter = { obs: readonly string[] | null; hist: readonly string[] | null };

export const CallRowSchema = z.object({
  id: z.number().int(),
  step: z.number().int().nullable(),
  /** JSON of the recorded request. */
  request: z.string(),
  /** JSON of the recorded response; null when the call failed. */
  response: z.string().nullable(),
  error: z.string().nullable(),
  rollout_id: z.string(),
  task_id: z.string(),
  success: z.number().transform((n) => n === 1),
  condition: z.string(),
  /** Benchmark split of the rollout's task. */
  split: z.string(),
  guideline_obs: z.string().nullable(),
  guideline_hist: z.string().nullable(),
  /** The call's compression event was recorded as failed (the original text was kept). */
  failed_event: z.number().transform((n) => n === 1),
});
/** One candidate call of a distillation export, joined with its rollout. */
export type CallRow = z.infer<typeof CallRowSchema>;

function where(f: RolloutFilter): { sql: string; params: unknown[] } {
  let sql = 'x.run_id = ? AND x.role = ?';
  const params: unknown[] = [f.run, f.llmRole];
  const anyOf = (column: string, values: readonly string[]) => {
    sql += ` AND ${column} IN (${values.map(() => '?').join(', ')})`;
    params.push(...values);
  };
  if (f.conditions) {
    const marks = f.conditions.map(() => '?').join(', ');
    sql += ` AND (r.condition IN (${marks}) OR r.strategy IN (${marks}))`;
    params.push(...f.conditions, ...f.conditions);
  }
  if (f.splits) anyOf('r.split', f.splits);
  if (f.guidelines?.obs) anyOf('r.guideline_obs', f.guidelines.obs);
  if (f.guidelines?.hist) anyOf('r.guideline_hist', f.guidelines.hist);
  return { sql, params };
}

/** Calls with their context (run, role) and rollout. */
const CALLS = `call_contexts x JOIN llm_calls c ON c.context = x.id
  JOIN rollouts r ON r.id = x.rollout_id`;

/** The distillation export's reads: calls joined with their rollouts, streamed. */
export class ExportQueries {
  constructor(
    private readonly db: Database.Database,
    private readonly blobs: BlobStore,
  ) {}

  /**
   * Task ids of the candidate calls, sorted, each with whether any of its matching rollouts
   * succeeded (the train/validation split is drawn from the tasks that can contribute examples).
   */
  tasks(f: RolloutFilter): { task: string; succeeded: boolean }[] {
    const w = where(f);
    const rows = this.db
      .prepare(
        `SELECT r.task_id AS task, MAX(r.success) AS ok
         FROM ${CALLS} WHERE ${w.sql} GROUP BY r.task_id ORDER BY r.task_id`,
      )
      .all(...w.params) as { task: string; ok: number }[];
    return rows.map((r) => ({ task: r.task, succeeded: r.ok === 1 }));
  }

  /**
   * The candidate calls in the export's deterministic order (task, rollout start, step, call
   * id), one row at a time: `.iterate()` and the bounded blob cache keep memory flat.
   */
  *calls(f: RolloutFilter): Generator<CallRow> {
    const w = where(f);
    const stmt = this.db.prepare(
      `SELECT c.id, c.step, c.messages_key, x.request_key, c.response_key, c.response_rest,
         c.prompt_tokens, c.cached_tokens, c.completion_tokens, c.error, r.id AS rollout_id, r.task_id,
         r.success, r.condition, r.split, r.guideline_obs, r.guideline_hist,
         EXISTS (SELECT 1 FROM compression_events e WHERE e.call_id = c.id AND e.failed = 1)
           AS failed_event
       FROM ${CALLS} WHERE ${w.sql}
       ORDER BY r.task_id, r.started_at, r.id, c.step, c.id`,
    );
    for (const raw of stmt.iterate(...w.params)) {
      const {
        messages_key,
        request_key,
        response_key,
        response_rest,
        prompt_tokens,
        cached_tokens,
        completion_tokens,
        ...row
      } = raw as Record<string, unknown> & UsageColumns;
      const usage = { prompt_tokens, cached_tokens, completion_tokens };
      yield CallRowSchema.parse({
        ...row,
        request: requestFromParts(this.blobs, keyOf(messages_key), keyOf(request_key)),
        response:
          response_key === null
            ? null
            : responseFromParts(
                this.blobs,
                keyOf(response_key),
                response_rest as string | null,
                usage,
              ),
      });
    }
  }
}

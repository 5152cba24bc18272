import type Database from 'better-sqlite3';
import { z } from 'zod';

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

const CallRowSchema = z.object({
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
  let sql = 'r.run_id = ?';
  const params: unknown[] = [f.run];
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

/** A finished rollout has a call of the role. */
const HAS_CALLS = 'EXISTS (SELECT 1 FROM calls c WHERE c.rollout = r.n AND c.role = ?)';

/**
 * Task ids of the candidate calls, sorted, each with whether any of its matching rollouts
 * succeeded (the train/validation split is drawn from the tasks that can contribute examples).
 */
export function exportTasks(
  db: Database.Database,
  f: RolloutFilter,
): { task: string; succeeded: boolean }[] {
  const w = where(f);
  const rows = db
    .prepare(
      `SELECT r.task_id AS task, MAX(r.success) AS ok FROM rollouts r
       WHERE ${w.sql} AND ${HAS_CALLS} GROUP BY r.task_id ORDER BY r.task_id`,
    )
    .all(...w.params, f.llmRole) as { task: string; ok: number }[];
  return rows.map((r) => ({ task: r.task, succeeded: r.ok === 1 }));
}

/**
 * The candidate calls in the export's deterministic order (task, rollout start, step, call id),
 * reading one rollout's document at a time: memory stays flat however large the run.
 */
export function* exportCalls(
  db: Database.Database,
  f: RolloutFilter,
  read: {
    events(doc: number): { callId: number | null; failed: boolean }[];
    call(row: { id: number; doc: number | null }): { request: string; response: string | null };
  },
): Generator<CallRow> {
  const w = where(f);
  const rollouts = db
    .prepare(
      `SELECT r.n, r.doc, r.id AS rollout_id, r.task_id, r.success, r.condition, r.split,
         r.guideline_obs, r.guideline_hist FROM rollouts r
       WHERE ${w.sql} AND ${HAS_CALLS} ORDER BY r.task_id, r.started_at, r.id`,
    )
    .all(...w.params, f.llmRole) as ({ n: number; doc: number } & Record<string, unknown>)[];
  const callsOf = db.prepare(
    'SELECT id, step, doc, error FROM calls WHERE rollout = ? AND role = ? ORDER BY step, id',
  );
  for (const { n, doc: rolloutDoc, ...rollout } of rollouts) {
    const calls = callsOf.all(n, f.llmRole) as {
      id: number;
      step: number | null;
      doc: number | null;
      error: string | null;
    }[];
    const events = read.events(rolloutDoc);
    const failed = new Set(events.filter((e) => e.failed).map((e) => e.callId));
    for (const c of calls) {
      yield CallRowSchema.parse({
        ...rollout,
        ...read.call(c),
        id: c.id,
        step: c.step,
        error: c.error,
        failed_event: failed.has(c.id) ? 1 : 0,
      });
    }
  }
}

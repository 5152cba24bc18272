import {
  type CompressionEvent,
  type RolloutRow,
  TrajectorySchema,
  type Trajectory,
} from '../domain/index.js';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { callTexts, type CallLog } from './call-log.js';
import { compress, rolloutDocument, type StoredStep } from './document.js';
import { exportCalls, exportTasks, type CallRow, type RolloutFilter } from './export-queries.js';
import {
  type ConditionCount,
  type FinishedRollout,
  ROLLOUT_COLUMNS,
  rolloutRow,
  type RoleUsageRow,
  type StorageStats,
} from './records.js';
import type { StoreDb } from './store-db.js';

/**
 * The rollouts table and each rollout's document: saving a finished rollout with its calls,
 * finding rollouts, reading back what a rollout's document holds, and the export's reads.
 */
export class RolloutTable {
  constructor(
    private readonly s: StoreDb,
    private readonly calls: CallLog,
  ) {}

  /** Stores a finished rollout's document (its calls out of the journal) and row at once. */
  saveRollout(r: FinishedRollout): void {
    this.s.commitBatch();
    const run = this.s.runNumber(r.runId);
    const n = this.s.number('rollout', r.id, run)!;
    const calls = this.calls.unfiled('c.rollout = ?', n);
    this.calls.journal.end(n);
    this.calls.writeDocument(run, calls, rolloutDocument(r, calls), (doc) =>
      this.s.insert('rollouts', {
        n,
        id: r.id,
        run_id: r.runId,
        condition: r.condition,
        task_id: r.taskId,
        split: r.split,
        strategy: r.strategy,
        guideline_obs: r.guidelineObs,
        guideline_hist: r.guidelineHist,
        status: r.status,
        success: r.metrics.success ? 1 : 0,
        score: r.metrics.score,
        steps: r.metrics.steps,
        peak_input_tokens: r.metrics.peakInputTokens,
        cost_usd: r.metrics.costUsd,
        metrics: JSON.stringify(r.metrics),
        evaluation: compress(JSON.stringify(r.evaluation)),
        error: r.error,
        started_at: r.startedAt,
        finished_at: r.finishedAt,
        episode_meta: r.episodeMeta ? JSON.stringify(r.episodeMeta) : null,
        doc,
      }),
    );
  }

  rollouts(runId: string, condition?: string): RolloutRow[] {
    const sql = `SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE run_id = ?
      AND (? IS NULL OR condition = ?) ORDER BY condition, task_id`;
    return this.s.all(sql, runId, condition || null, condition).map(rolloutRow);
  }

  /** One rollout by id, or by a unique prefix of its id (as `acon runs show` prints them). */
  rollout(idOrPrefix: string): RolloutRow {
    const prefix = `${idOrPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const exact = this.s.one(`SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE id = ?`, idOrPrefix);
    const rows = exact
      ? [exact]
      : this.s.all(
          `SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE id LIKE ? ESCAPE '\\' LIMIT 2`,
          prefix,
        );
    if (rows.length === 1) return rolloutRow(rows[0]);
    if (rows.length > 1) {
      const msg = `rollout id prefix "${idOrPrefix}" matches several rollouts; give more characters`;
      throw new InvalidInputError(msg, { what: 'rollout id', value: idOrPrefix });
    }
    throw new NotFoundError(
      `no rollout ${idOrPrefix} in ${this.s.path}; list a run's rollouts with \`acon runs show RUN\``,
    );
  }

  /** Rollouts and successes per split and condition of each run (for `acon runs`), in one query. */
  conditionCounts(): ConditionCount[] {
    return this.s.all(
      `SELECT run_id AS runId, split, condition, COUNT(*) AS rollouts, SUM(success) AS successes
         FROM rollouts GROUP BY run_id, split, condition ORDER BY run_id, MIN(rowid)`,
    );
  }

  /**
   * Usage by role of the calls no finished rollout's metrics count: analyzer, updater, rollouts
   * that never finished (report/cost-by-role.ts adds the rest; summing every call row read them all).
   */
  usageOutsideRollouts(runId: string): RoleUsageRow[] {
    return this.s.all(
      `SELECT c.role, COUNT(*) AS calls, COALESCE(SUM(c.prompt_tokens), 0) AS inputTokens,
           COALESCE(SUM(c.cached_tokens), 0) AS cachedTokens,
           COALESCE(SUM(c.completion_tokens), 0) AS outputTokens,
           COALESCE(SUM(${this.s.reasoning}), 0) AS reasoningTokens,
           COALESCE(SUM(c.cost_usd), 0) AS costUsd
         FROM calls c
         -- +c.run: found by the rollout index (rollout IS NULL), not by every call of the run
         WHERE (c.rollout IS NULL AND +c.run = @run)
           OR c.rollout IN (SELECT i.n FROM rollout_ids i WHERE i.run = @run
             AND NOT EXISTS (SELECT 1 FROM rollouts o WHERE o.n = i.n))
         GROUP BY c.role ORDER BY c.role`,
      { run: this.s.runNumber(runId) },
    );
  }

  /** The conditions the run has rollouts of, sorted. */
  runConditions(runId: string): string[] {
    const sql = 'SELECT DISTINCT condition FROM rollouts WHERE run_id = ? ORDER BY condition';
    return this.s.sql(sql).pluck().all(runId) as string[];
  }

  /** `condition\u0000taskId` keys of the finished rollouts of a run (for resuming it). */
  finishedKeys(runId: string): Set<string> {
    const rows = this.s.all<{ condition: string; task_id: string }>(
      'SELECT condition, task_id FROM rollouts WHERE run_id = ?',
      runId,
    );
    return new Set(rows.map((r) => rolloutKey(r.condition, r.task_id)));
  }

  /** The document of a finished rollout. */
  private doc(rolloutId: string) {
    const n = this.s.value<number>('SELECT doc FROM rollouts WHERE id = ?', rolloutId);
    if (n === undefined) throw new NotFoundError(`no rollout ${rolloutId}`);
    return this.calls.lastDoc.get(n);
  }

  trajectory(rolloutId: string): Trajectory {
    return TrajectorySchema.parse(this.doc(rolloutId).trajectory());
  }

  /** The system prompt and task of a rollout (what a viewer shows above the steps). */
  trajectoryHead(rolloutId: string): Pick<Trajectory, 'system' | 'task'> {
    return this.doc(rolloutId).head();
  }

  /** The messages sent to the agent at each step of a rollout. */
  prompts(rolloutId: string): unknown[][] {
    return this.doc(rolloutId).prompts();
  }

  /** The agent steps of a rollout without prompts (messages shared with the cache: read only). */
  stepRecords(rolloutId: string): StoredStep[] {
    return this.doc(rolloutId).steps();
  }

  events(rolloutId: string): CompressionEvent[] {
    return this.doc(rolloutId).get('events') as CompressionEvent[];
  }

  /** Task ids with candidate calls, sorted, each with whether a matching rollout succeeded. */
  exportTasks(f: RolloutFilter) {
    return exportTasks(this.s.db, f);
  }

  /** Candidate calls in the export's fixed order, one rollout document at a time. */
  exportCalls(f: RolloutFilter): Generator<CallRow> {
    const { lastDoc } = this.calls;
    return exportCalls(this.s.db, f, {
      events: (n) => lastDoc.get(n).get('events') as CompressionEvent[],
      call: (row) => callTexts(this.calls.payload(row, lastDoc)),
    });
  }

  /** Documents stored, their bytes on disk (journal included) and their bytes decompressed. */
  storageStats(): StorageStats {
    return this.s.one(
      `SELECT COUNT(*) AS documents,
           COALESCE(SUM(LENGTH(data)), 0) + (SELECT COALESCE(SUM(LENGTH(data)), 0) FROM journal)
             AS storedBytes,
           COALESCE(SUM(size), 0) AS textBytes FROM docs`,
    )!;
  }
}

export function rolloutKey(condition: string, taskId: string): string {
  return `${condition}\u0000${taskId}`;
}

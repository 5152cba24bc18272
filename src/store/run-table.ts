import type { z } from 'zod';
import { NotFoundError, RunBusyError } from '../errors.js';
import { redactUrlCredentials } from '../url-credentials.js';
import type { CallLog } from './call-log.js';
import { describeOwner, isSelf, ownerAlive, type OwnerProbe } from './ownership.js';
import type { RunRow, RunStatus } from '../domain/index.js';
import { StoredRunRowSchema, type NewRun } from './records.js';
import { now, type StoreDb } from './store-db.js';

/**
 * The runs table: a run's record, its owner (the process working on it, with a heartbeat), its
 * status and the checkpoints of a multi-stage run; deleting a run with everything it stored.
 */
export class RunTable {
  private readonly heartbeats = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly s: StoreDb,
    private readonly calls: CallLog,
    private readonly probe: OwnerProbe,
    private readonly heartbeatMs: number,
  ) {}

  /** Records a new run, owned by this process until it stops. */
  createRun(run: NewRun): void {
    this.s.commitBatch();
    this.s.insert('runs', {
      ...run,
      models: JSON.stringify(run.models),
      simulated: run.simulated ? 1 : 0,
      params: JSON.stringify(run.params),
      config: JSON.stringify(run.config),
      status: 'running',
      created_at: now(),
      owner_pid: this.probe.self.pid,
      owner_host: this.probe.self.host,
      heartbeat_at: this.probe.now(),
    });
    this.startHeartbeat(run.id);
  }

  /** Refuses to change a run another live process owns (issue #31, item 6). */
  private checkOwner(run: RunRow, fix: string): void {
    if (run.status === 'running' && !isSelf(run.owner, this.probe)) {
      const by = describeOwner(run.owner, this.probe);
      throw new RunBusyError(`run ${run.id} is being run by ${by}; ${fix}`);
    }
  }

  /** Takes over a run to resume it, unless another live process owns it. */
  claimRun(id: string): RunRow {
    this.s.commitBatch();
    const claim = this.s.db.transaction(() => {
      // getRun already shows a run whose owner is gone as interrupted.
      const fix = 'wait for it to finish or stop it (Ctrl-C) before resuming';
      this.checkOwner(this.getRun(id), fix);
      const { pid, host } = this.probe.self;
      this.s.run(
        `UPDATE runs SET status = 'running', finished_at = NULL, owner_pid = ?, owner_host = ?,
           heartbeat_at = ? WHERE id = ?`,
        pid,
        host,
        this.probe.now(),
        id,
      );
      return this.getRun(id);
    });
    const claimed = claim.immediate();
    this.startHeartbeat(id);
    return claimed;
  }

  /** Writes the heartbeat of a run this process owns (the timer does this every heartbeatMs). */
  heartbeat(id: string): void {
    this.s.commitBatch();
    const { pid, host } = this.probe.self;
    const sql =
      'UPDATE runs SET heartbeat_at = ? WHERE id = ? AND owner_pid = ? AND owner_host = ?';
    this.s.run(sql, this.probe.now(), id, pid, host);
  }

  private startHeartbeat(id: string): void {
    if (this.s.db.readonly || this.heartbeats.has(id)) return;
    // The heartbeat never keeps a finished command alive.
    this.heartbeats.set(id, setInterval(() => this.heartbeat(id), this.heartbeatMs).unref());
  }

  /** Stops every heartbeat this process writes (the store closes). */
  stopHeartbeats(): void {
    for (const timer of this.heartbeats.values()) clearInterval(timer);
    this.heartbeats.clear();
  }

  getRun(id: string): RunRow {
    const row = this.s.one('SELECT * FROM runs WHERE id = ?', id);
    if (!row) {
      throw new NotFoundError(`no run ${id} in ${this.s.path}; list runs with \`acon runs\``);
    }
    return this.toRunRow(row);
  }

  private toRunRow(raw: unknown): RunRow {
    const row = StoredRunRowSchema.parse(raw);
    const gone = row.status === 'running' && !ownerAlive(row.owner, this.probe);
    return gone ? { ...row, status: 'interrupted' } : row;
  }

  /** Runs, newest first, optionally of one kind. */
  listRuns(kind?: string): RunRow[] {
    const sql = 'SELECT * FROM runs WHERE ? IS NULL OR kind = ? ORDER BY created_at DESC, n DESC';
    return this.s.all(sql, kind || null, kind).map((r) => this.toRunRow(r));
  }

  /** The newest run that has at least one stored rollout, of any kind; null when there is none. */
  latestRunWithRollouts(): RunRow | null {
    const row = this.s.one(
      `SELECT * FROM runs r WHERE EXISTS (SELECT 1 FROM rollouts o WHERE o.run_id = r.id)
       ORDER BY r.created_at DESC, r.n DESC LIMIT 1`,
    );
    return row ? this.toRunRow(row) : null;
  }

  /** Sets a run's status; any status but `running` ends this process's ownership (heartbeat). */
  setRunStatus(id: string, status: RunStatus, summary?: unknown): void {
    this.s.commitBatch();
    if (status !== 'running') {
      clearInterval(this.heartbeats.get(id));
      this.heartbeats.delete(id);
      this.calls.flushRun(id, true);
    }
    const finished = status === 'running' ? null : now();
    const json = summary === undefined ? null : redactUrlCredentials(JSON.stringify(summary));
    this.s.run(
      'UPDATE runs SET status = ?, finished_at = ?, summary = COALESCE(?, summary) WHERE id = ?',
      status,
      finished,
      json,
      id,
    );
  }

  /**
   * Deletes a run with its rollouts, documents, calls, their cache entries and checkpoints, in one
   * transaction; guideline versions stay (files on disk name them). Refused while another live
   * process owns the run.
   */
  deleteRun(runId: string) {
    this.s.commitBatch();
    const ofCalls = 'IN (SELECT id FROM calls WHERE run = ?)';
    const remove = this.s.db.transaction(() => {
      // Checked in the transaction: a run resumed meanwhile is not pulled from under its writer.
      const row = this.getRun(runId);
      const run = this.s.runNumber(runId);
      const fix = `stop that process first (Ctrl-C in its terminal, or kill ${row.owner.pid}), then delete the run`;
      this.checkOwner(row, fix);
      this.s.run(`DELETE FROM llm_cache WHERE call ${ofCalls}`, run);
      this.s.run(`DELETE FROM journal WHERE call ${ofCalls}`, run);
      const calls = this.s.run('DELETE FROM calls WHERE run = ?', run);
      const rollouts = this.s.run('DELETE FROM rollouts WHERE run_id = ?', runId);
      this.s.run('DELETE FROM rollout_ids WHERE run = ?', run);
      this.s.run('DELETE FROM docs WHERE run = ?', run);
      this.s.run('DELETE FROM run_state WHERE run_id = ?', runId);
      this.s.run('DELETE FROM runs WHERE n = ?', run);
      return { rollouts, calls };
    });
    const deleted = remove.immediate();
    this.s.forgetNumbers();
    this.calls.forgetDocuments();
    return deleted;
  }

  getState<T extends z.ZodType>(runId: string, key: string, schema: T): z.infer<T> | undefined {
    const sql = 'SELECT value FROM run_state WHERE run_id = ? AND key = ?';
    const value = this.s.value<string>(sql, runId, key);
    return value === undefined ? undefined : (schema.parse(JSON.parse(value)) as z.infer<T>);
  }

  /** Records a checkpoint; the calls the run made outside rollouts so far go to a document. */
  setState(runId: string, key: string, value: unknown): void {
    this.s.commitBatch();
    this.calls.flushRun(runId, false);
    const row = { run_id: runId, key, value: JSON.stringify(value) };
    this.s.insert('run_state', row, 'INSERT OR REPLACE');
  }
}

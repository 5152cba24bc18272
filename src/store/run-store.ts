import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { z } from 'zod';
import type { CompressionEvent } from '../domain/compression-event.js';
import { TrajectorySchema, type Trajectory } from '../domain/trajectory.js';
import { NotFoundError, RunBusyError, UsageError } from '../errors.js';
import type { CallRecord, CallStore } from '../llm/call-store.js';
import type { ProviderResponse } from '../llm/types.js';
import type { CallUsage } from '../domain/rollout-metrics.js';
import {
  compress,
  callsDocument,
  DocCache,
  rolloutDocument,
  type CallPayload,
  type Doc,
} from './document.js';
import { JournalWriter, readJournal } from './journal.js';
import { exportCalls, exportTasks, type CallRow, type RolloutFilter } from './export-queries.js';
import { openDatabase, type OpenMode } from './open.js';
import {
  currentOwner,
  describeOwner,
  HEARTBEAT_MS,
  isSelf,
  ownerAlive,
  processAlive,
  type OwnerProbe,
} from './ownership.js';
import {
  GuidelineVersionRowSchema,
  RolloutRowSchema,
  type ConditionCount,
  type RoleUsageRow,
  RunRowSchema,
  type CallFilter,
  type FinishedRollout,
  type GuidelineVersionRow,
  type LlmCallRow,
  type NewRun,
  type RolloutRow,
  type RunRow,
  type RunStatus,
  type StepActionRow,
  type StepRow,
  type StorageStats,
} from './records.js';

export * from './records.js';

export type StoreOptions = {
  /** `read` opens the file read-only and never creates or changes it. @default 'write' */
  mode?: OpenMode;
  /** Owner identity, clock and pid check for run ownership; tests pass fakes. */
  probe?: Partial<OwnerProbe>;
  /** How often an owned run's heartbeat is written (ms). @default HEARTBEAT_MS */
  heartbeatMs?: number;
};

/**
 * The one interface every reader and writer of stored runs uses (CLI, optimize, report, export,
 * resume): nobody outside src/store writes SQL.
 */
export interface RunStore extends CallStore {
  readonly path: string;
  close(): void;
  callsOfRollout(rolloutId: string): CallUsage[];
  callStats(runId: string): { calls: number; cachedCalls: number; costUsd: number };
  calls(filter: CallFilter): LlmCallRow[];
  countCalls(filter: CallFilter): number;
  createRun(run: NewRun): void;
  getRun(id: string): RunRow;
  listRuns(kind?: string): RunRow[];
  latestRunWithRollouts(): RunRow | null;
  setRunStatus(id: string, status: RunStatus, summary?: unknown): void;
  saveRollout(r: FinishedRollout): void;
  rollouts(runId: string, condition?: string): RolloutRow[];
  runConditions(runId: string): string[];
  finishedKeys(runId: string): Set<string>;
  trajectory(rolloutId: string): Trajectory;
  trajectoryHead(rolloutId: string): Pick<Trajectory, 'system' | 'task'>;
  steps(rolloutId: string): StepRow[];
  stepActions(rolloutId: string): StepActionRow[];
  events(rolloutId: string): CompressionEvent[];
  exportTasks(f: RolloutFilter): { task: string; succeeded: boolean }[];
  exportCalls(f: RolloutFilter): Generator<CallRow>;
  storageStats(): StorageStats;
  claimRun(id: string): RunRow;
  heartbeat(id: string): void;
  rollout(idOrPrefix: string): RolloutRow;
  conditionCounts(): ConditionCount[];
  usageByRole(runId: string): RoleUsageRow[];
  guidelineVersions(runId: string): GuidelineVersionRow[];
  deleteRun(runId: string): { rollouts: number; calls: number };
  getState<T extends z.ZodType>(runId: string, key: string, schema: T): z.infer<T> | undefined;
  setState(runId: string, key: string, value: unknown): void;
  saveGuidelineVersion(v: GuidelineVersionRow): void;
}

/**
 * The SQLite store of runs (better-sqlite3, WAL): one brotli-compressed document per finished
 * rollout (trajectory, steps, prompts, compression events, its calls' requests and responses),
 * one small row per call for what is queried, and the call cache pointing into the documents.
 * A call is written to the journal as it completes and moves into its rollout's document when
 * the rollout is saved (calls outside rollouts: into a run document when the run reaches a
 * checkpoint or stops), so a killed process loses only work in flight.
 */
export class SqliteRunStore implements RunStore {
  private readonly db: Database.Database;
  private readonly docs: DocCache;
  private readonly probe: OwnerProbe;
  private readonly heartbeatMs: number;
  private readonly heartbeats = new Map<string, NodeJS.Timeout>();
  /** Payloads of the calls this process wrote to the journal, until they move to a document. */
  private readonly pending = new Map<number, CallPayload>();
  private readonly journal = new JournalWriter();
  /** Answers putCached was given, until recordCall stores the call that got them. */
  private readonly toCache = new Map<string, ProviderResponse>();
  private readonly numbers = new Map<string, number>();

  constructor(
    readonly path: string,
    opts: StoreOptions = {},
  ) {
    this.db = openDatabase(path, opts.mode ?? 'write');
    this.probe = {
      self: opts.probe?.self ?? currentOwner(),
      now: opts.probe?.now ?? (() => Date.now()),
      pidAlive: opts.probe?.pidAlive ?? processAlive,
    };
    this.heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
    this.docs = new DocCache((n) => {
      const data = this.sql('SELECT data FROM docs WHERE n = ?').pluck().get(n) as Buffer;
      if (!data) throw new Error(`document ${n} is missing from ${this.path}; the file is damaged`);
      return data;
    });
  }

  /** Prepared statements by their SQL: preparing costs more than running most of them. */
  private readonly statements = new Map<string, Database.Statement>();

  private sql(text: string): Database.Statement {
    let stmt = this.statements.get(text);
    if (!stmt) {
      stmt = this.db.prepare(text);
      this.statements.set(text, stmt);
    }
    return stmt;
  }

  /** Inserts a row given by its columns (`verb`: INSERT OR REPLACE…); returns its rowid. */
  private insert(table: string, row: Record<string, unknown>, verb = 'INSERT'): number {
    return Number(this.sql(insertSql(table, row, verb)).run(row).lastInsertRowid);
  }

  close(): void {
    for (const timer of this.heartbeats.values()) clearInterval(timer);
    this.heartbeats.clear();
    this.db.close();
  }

  /** The number of a run (`run`) or rollout id (`rollout`, given one at its first use). */
  private number(kind: 'run' | 'rollout', id: string, run?: number): number | undefined {
    const key = `${kind}\u0000${id}`;
    const known = this.numbers.get(key);
    if (known !== undefined) return known;
    const table = kind === 'run' ? 'runs' : 'rollout_ids';
    let n = this.sql(`SELECT n FROM ${table} WHERE id = ?`).pluck().get(id) as number | undefined;
    if (n === undefined && run !== undefined) n = this.insert('rollout_ids', { id, run });
    if (n === undefined) return undefined;
    if (this.numbers.size >= 10_000) this.numbers.clear();
    if (!this.db.inTransaction) this.numbers.set(key, n);
    return n;
  }

  private runNumber(runId: string): number {
    const n = this.number('run', runId);
    if (n === undefined) throw new NotFoundError(`no run ${runId} in ${this.path}`);
    return n;
  }

  // ---- call cache and call log (CallStore) ----

  getCached(requestHash: string): ProviderResponse | undefined {
    const row = this.sql(
      `SELECT c.id, c.doc FROM llm_cache k JOIN calls c ON c.id = k.call
         WHERE k.request_hash = ?`,
    ).get(hashKey(requestHash)) as { id: number; doc: number | null } | undefined;
    const response = row && this.payload(row).response;
    // A copy: callers cannot change the document read for others.
    return response ? (structuredClone(response) as ProviderResponse) : undefined;
  }

  putCached(requestHash: string, _provider: string, _model: string, response: ProviderResponse) {
    this.toCache.set(requestHash, response);
  }

  /** Records a call and its payload (in the journal) in one transaction. */
  recordCall(call: CallRecord): number {
    const run = this.runNumber(call.ctx.runId);
    const { rolloutId, taskId, step, role } = call.ctx;
    const rollout = rolloutId === undefined ? null : this.number('rollout', rolloutId, run)!;
    const body = { taskId: taskId ?? null, createdAt: Date.now() };
    const payload = { id: 0, ...body, request: call.request, response: call.response };
    const row = this.journal.row(rollout, payload);
    const cache = call.response !== null && this.toCache.get(call.requestHash) === call.response;
    let id: number;
    try {
      id = this.db
        .transaction(() => {
          const id = this.insert('calls', {
            run,
            rollout,
            step: step ?? null,
            role,
            provider: call.provider,
            model: call.model,
            request_hash: hashKey(call.requestHash),
            prompt_tokens: call.usage.promptTokens,
            cached_tokens: call.usage.cachedPromptTokens,
            completion_tokens: call.usage.completionTokens,
            cost_usd: call.costUsd,
            latency_ms: call.latencyMs,
            cached: call.cached ? 1 : 0,
            error: call.error,
          });
          this.insert('journal', { call: id, data: row.text });
          if (cache) {
            const entry = { request_hash: hashKey(call.requestHash), call: id };
            this.insert('llm_cache', entry, 'INSERT OR REPLACE');
          }
          return id;
        })
        .immediate();
    } catch (err) {
      row.undo();
      throw err;
    }
    this.toCache.delete(call.requestHash);
    this.pending.set(id, { ...payload, id });
    return id;
  }

  /** A call's payload, from its document or the journal. */
  private payload(row: { id: number; doc: number | null }): CallPayload {
    const found = row.doc === null ? this.journaled(row.id) : this.docs.get(row.doc).call(row.id);
    if (found?.id !== row.id) {
      throw new Error(`call ${row.id} is missing from ${this.path}; the file is damaged`);
    }
    return found;
  }

  private journaled(id: number): CallPayload | undefined {
    const mine = this.pending.get(id);
    if (mine) return mine;
    const { run, rollout } = this.sql('SELECT run, rollout FROM calls WHERE id = ?').get(id) as {
      run: number;
      rollout: number | null;
    };
    return this.unfiled('c.run = ? AND c.rollout IS ? AND c.id <= ?', run, rollout, id).at(-1);
  }

  /** The calls still in the journal that `where` selects (of `calls c`), in call order. */
  private unfiled(where: string, ...params: unknown[]): CallPayload[] {
    const rows = this.sql(
      `SELECT c.id, c.rollout, j.data FROM calls c JOIN journal j ON j.call = c.id
         WHERE c.doc IS NULL AND ${where} ORDER BY c.id`,
    ).all(...params) as { id: number; rollout: number | null; data: string | Buffer }[];
    return readJournal(rows, (id) => this.pending.get(id));
  }

  /**
   * Writes a document holding the journal's `calls` (and the rollout's sections) and moves the
   * calls there, in one transaction.
   */
  private writeDocument(
    run: number,
    calls: readonly CallPayload[],
    text: string,
    andThen: (doc: number) => void = () => {},
  ): void {
    const data = compress(text);
    this.db
      .transaction(() => {
        const doc = this.insert('docs', { run, size: Buffer.byteLength(text), data });
        andThen(doc);
        for (const { id } of calls) {
          this.sql('UPDATE calls SET doc = ? WHERE id = ?').run(doc, id);
          this.sql('DELETE FROM journal WHERE call = ?').run(id);
        }
      })
      .immediate();
    for (const { id } of calls) this.pending.delete(id);
  }

  /**
   * Moves a run's journal calls made outside rollouts (analyzer, updater) into a run document;
   * `all`: also those of rollouts that never finished (the run stopped).
   */
  private flushRun(runId: string, all: boolean): void {
    if (this.db.readonly) return;
    const run = this.number('run', runId);
    if (run === undefined) return;
    const calls = this.unfiled(`c.run = ? ${all ? '' : 'AND c.rollout IS NULL'}`, run);
    if (calls.length > 0) this.writeDocument(run, calls, callsDocument(calls));
    if (!all) return;
    this.journal.clear();
    // The journal's pages, free now, go back to the disk.
    this.db.pragma('incremental_vacuum');
  }

  /** A call's request and response as the JSON texts they were recorded as. */
  private callTexts(row: { id: number; doc: number | null }) {
    const { request, response } = this.payload(row);
    const answer = response === null ? null : JSON.stringify(response);
    return { request: JSON.stringify(request), response: answer };
  }

  callsOfRollout(rolloutId: string): CallUsage[] {
    return this.sql(
      `SELECT c.id, c.role, c.model, c.prompt_tokens AS promptTokens,
           c.cached_tokens AS cachedTokens, c.completion_tokens AS completionTokens,
           c.cost_usd AS costUsd
         FROM calls c JOIN rollout_ids i ON i.n = c.rollout WHERE i.id = ? ORDER BY c.id`,
    ).all(rolloutId) as CallUsage[];
  }

  /** Calls and cost of a run, and how many were served from the cache. */
  callStats(runId: string): { calls: number; cachedCalls: number; costUsd: number } {
    return this.sql(
      `SELECT COUNT(*) AS calls, COALESCE(SUM(c.cached), 0) AS cachedCalls,
           COALESCE(SUM(c.cost_usd), 0) AS costUsd
         FROM calls c JOIN runs r ON r.n = c.run WHERE r.id = ?`,
    ).get(runId) as { calls: number; cachedCalls: number; costUsd: number };
  }

  /** Recorded calls in the order they were made, with their requests and responses. */
  calls(filter: CallFilter): LlmCallRow[] {
    const w = callWhere(filter);
    type Row = Omit<LlmCallRow, 'taskId' | 'request' | 'response' | 'cached'>;
    const rows = this.sql(
      `SELECT c.id, c.doc, lower(hex(c.request_hash)) AS requestHash, r.id AS runId, i.id AS rolloutId, c.step, c.role, c.provider, c.model,
           c.prompt_tokens AS promptTokens, c.cached_tokens AS cachedTokens,
           c.completion_tokens AS completionTokens, c.cost_usd AS costUsd,
           c.latency_ms AS latencyMs, c.cached, c.error
         FROM calls c JOIN runs r ON r.n = c.run LEFT JOIN rollout_ids i ON i.n = c.rollout
         WHERE ${w.sql} ORDER BY c.id`,
    ).all(...w.params) as (Row & { doc: number | null; cached: number })[];
    return rows.map(({ doc, cached, ...c }) => {
      const { taskId, createdAt } = this.payload({ id: c.id, doc });
      return {
        ...c,
        taskId,
        ...this.callTexts({ id: c.id, doc }),
        cached: cached === 1,
        createdAt: new Date(createdAt).toISOString(),
      };
    });
  }

  countCalls(filter: CallFilter): number {
    const w = callWhere(filter);
    return this.sql(
      `SELECT COUNT(*) FROM calls c JOIN runs r ON r.n = c.run
         LEFT JOIN rollout_ids i ON i.n = c.rollout WHERE ${w.sql}`,
    )
      .pluck()
      .get(...w.params) as number;
  }
  // ---- runs ----

  /** Records a new run, owned by this process until it stops. */
  createRun(run: NewRun): void {
    this.insert('runs', {
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

  /**
   * Takes over a run to resume it: refused while another live process owns it; a run whose
   * owner is gone (or that stopped cleanly) becomes this process's, status `running`.
   */
  claimRun(id: string): RunRow {
    const claimed = this.db
      .transaction(() => {
        const run = this.getRun(id);
        // getRun already shows a run whose owner is gone as interrupted.
        if (run.status === 'running' && !isSelf(run.owner, this.probe)) {
          throw new RunBusyError(
            `run ${id} is being run by ${describeOwner(run.owner, this.probe)}; wait for it to finish or stop it (Ctrl-C) before resuming`,
          );
        }
        const self = this.probe.self;
        this.sql(
          `UPDATE runs SET status = 'running', finished_at = NULL, owner_pid = ?, owner_host = ?,
               heartbeat_at = ? WHERE id = ?`,
        ).run(self.pid, self.host, this.probe.now(), id);
        return this.getRun(id);
      })
      .immediate();
    this.startHeartbeat(id);
    return claimed;
  }

  /** Writes the heartbeat of a run this process owns (the timer does this every heartbeatMs). */
  heartbeat(id: string): void {
    this.sql(
      'UPDATE runs SET heartbeat_at = ? WHERE id = ? AND owner_pid = ? AND owner_host = ?',
    ).run(this.probe.now(), id, this.probe.self.pid, this.probe.self.host);
  }

  private startHeartbeat(id: string): void {
    if (this.db.readonly || this.heartbeats.has(id)) return;
    const timer = setInterval(() => this.heartbeat(id), this.heartbeatMs);
    // The heartbeat never keeps a finished command alive.
    timer.unref();
    this.heartbeats.set(id, timer);
  }

  private stopHeartbeat(id: string): void {
    clearInterval(this.heartbeats.get(id));
    this.heartbeats.delete(id);
  }

  getRun(id: string): RunRow {
    const row = this.sql('SELECT * FROM runs WHERE id = ?').get(id);
    if (!row) throw new NotFoundError(`no run ${id} in ${this.path}; list runs with \`acon runs\``);
    return this.toRunRow(row);
  }

  private toRunRow(raw: unknown): RunRow {
    const row = RunRowSchema.parse(raw);
    const gone = row.status === 'running' && !ownerAlive(row.owner, this.probe);
    return gone ? { ...row, status: 'interrupted' } : row;
  }

  /** Runs, newest first, optionally of one kind. */
  listRuns(kind?: string): RunRow[] {
    const rows = kind
      ? this.sql('SELECT * FROM runs WHERE kind = ? ORDER BY created_at DESC, n DESC').all(kind)
      : this.sql('SELECT * FROM runs ORDER BY created_at DESC, n DESC').all();
    return rows.map((r) => this.toRunRow(r));
  }

  /** The newest run that has at least one stored rollout, of any kind; null when there is none. */
  latestRunWithRollouts(): RunRow | null {
    const row = this.sql(
      `SELECT * FROM runs r WHERE EXISTS (SELECT 1 FROM rollouts o WHERE o.run_id = r.id)
       ORDER BY r.created_at DESC, r.n DESC LIMIT 1`,
    ).get();
    return row ? this.toRunRow(row) : null;
  }

  /** Sets a run's status; any status but `running` ends this process's ownership (heartbeat). */
  setRunStatus(id: string, status: RunStatus, summary?: unknown): void {
    if (status !== 'running') {
      this.stopHeartbeat(id);
      this.flushRun(id, true);
    }
    const finished = status === 'running' ? null : now();
    if (summary === undefined) {
      this.sql('UPDATE runs SET status = ?, finished_at = ? WHERE id = ?').run(
        status,
        finished,
        id,
      );
    } else {
      this.sql('UPDATE runs SET status = ?, finished_at = ?, summary = ? WHERE id = ?').run(
        status,
        finished,
        JSON.stringify(summary),
        id,
      );
    }
  }

  // ---- rollouts ----

  /**
   * Stores a finished rollout: its document (trajectory, steps, prompts, events and the calls
   * it made, out of the journal) and its row, in one transaction.
   */
  saveRollout(r: FinishedRollout): void {
    const run = this.runNumber(r.runId);
    const n = this.number('rollout', r.id, run)!;
    const calls = this.unfiled('c.rollout = ?', n);
    this.journal.end(n);
    this.writeDocument(run, calls, rolloutDocument(r, calls), (doc) =>
      this.insert('rollouts', {
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
        evaluation: JSON.stringify(r.evaluation),
        error: r.error,
        started_at: r.startedAt,
        finished_at: r.finishedAt,
        episode_meta: r.episodeMeta ? JSON.stringify(r.episodeMeta) : null,
        doc,
      }),
    );
  }

  rollouts(runId: string, condition?: string): RolloutRow[] {
    const rows = condition
      ? this.sql('SELECT * FROM rollouts WHERE run_id = ? AND condition = ? ORDER BY task_id').all(
          runId,
          condition,
        )
      : this.sql('SELECT * FROM rollouts WHERE run_id = ? ORDER BY condition, task_id').all(runId);
    return rows.map((r) => RolloutRowSchema.parse(r));
  }

  /** One rollout by id, or by a unique prefix of its id (as `acon runs show` prints them). */
  rollout(idOrPrefix: string): RolloutRow {
    const exact = this.sql('SELECT * FROM rollouts WHERE id = ?').get(idOrPrefix);
    if (exact) return RolloutRowSchema.parse(exact);
    const rows = this.sql("SELECT * FROM rollouts WHERE id LIKE ? ESCAPE '\\' LIMIT 2").all(
      `${idOrPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    );
    if (rows.length === 1) return RolloutRowSchema.parse(rows[0]);
    if (rows.length > 1) {
      throw new UsageError(
        `rollout id prefix "${idOrPrefix}" matches several rollouts; give more characters`,
      );
    }
    throw new NotFoundError(
      `no rollout ${idOrPrefix} in ${this.path}; list a run's rollouts with \`acon runs show RUN\``,
    );
  }

  /** Rollouts and successes per split and condition of each run (for `acon runs`), in one query. */
  conditionCounts(): ConditionCount[] {
    return this.sql(
      `SELECT run_id AS runId, split, condition, COUNT(*) AS rollouts, SUM(success) AS successes
         FROM rollouts GROUP BY run_id, split, condition ORDER BY run_id, MIN(rowid)`,
    ).all() as ConditionCount[];
  }

  /** LLM calls of a run by role: calls, tokens and cost (the report's cost-by-role view). */
  usageByRole(runId: string): RoleUsageRow[] {
    return this.sql(
      `SELECT c.role, COUNT(*) AS calls, COALESCE(SUM(c.prompt_tokens), 0) AS inputTokens,
           COALESCE(SUM(c.completion_tokens), 0) AS outputTokens,
           COALESCE(SUM(c.cost_usd), 0) AS costUsd
         FROM calls c JOIN runs r ON r.n = c.run WHERE r.id = ? GROUP BY c.role ORDER BY c.role`,
    ).all(runId) as RoleUsageRow[];
  }

  /** Guideline versions created by a run (its lineage), oldest first. */
  guidelineVersions(runId: string): GuidelineVersionRow[] {
    const rows = this.sql(
      `SELECT id, kind, parent, phase, run_id AS runId, status, path, text, metrics,
           created_at AS createdAt FROM guideline_versions WHERE run_id = ? ORDER BY created_at, id`,
    ).all(runId);
    return rows.map((r) => GuidelineVersionRowSchema.parse(r));
  }

  /**
   * Deletes a run and everything that belongs to it (rollouts and their documents, LLM calls
   * and the cache entries that point to them, checkpoints) in one transaction. Guideline
   * versions stay: the guideline files on disk name them. A run another live process owns is
   * refused (RunBusyError), whatever the caller says.
   */
  deleteRun(runId: string): { rollouts: number; calls: number } {
    this.getRun(runId);
    const run = this.runNumber(runId);
    const ofCalls = 'IN (SELECT id FROM calls WHERE run = ?)';
    const deleted = this.db
      .transaction(() => {
        // Checked in the transaction: a run resumed meanwhile is not pulled from under its
        // writer (issue #31, item 6).
        const row = this.getRun(runId);
        if (row.status === 'running' && !isSelf(row.owner, this.probe)) {
          throw new RunBusyError(
            `run ${runId} is being run by ${describeOwner(row.owner, this.probe)}; stop that process first (Ctrl-C in its terminal, or kill ${row.owner.pid}), then delete the run`,
          );
        }
        this.sql(`DELETE FROM llm_cache WHERE call ${ofCalls}`).run(run);
        this.sql(`DELETE FROM journal WHERE call ${ofCalls}`).run(run);
        const calls = this.sql('DELETE FROM calls WHERE run = ?').run(run).changes;
        const rollouts = this.sql('DELETE FROM rollouts WHERE run_id = ?').run(runId).changes;
        this.sql('DELETE FROM rollout_ids WHERE run = ?').run(run);
        this.sql('DELETE FROM docs WHERE run = ?').run(run);
        this.sql('DELETE FROM run_state WHERE run_id = ?').run(runId);
        this.sql('DELETE FROM runs WHERE n = ?').run(run);
        return { rollouts, calls };
      })
      .immediate();
    this.numbers.clear();
    this.docs.clear();
    return deleted;
  }

  /** The conditions the run has rollouts of, sorted. */
  runConditions(runId: string): string[] {
    return this.sql('SELECT DISTINCT condition FROM rollouts WHERE run_id = ? ORDER BY condition')
      .pluck()
      .all(runId) as string[];
  }

  /** `condition\u0000taskId` keys of the finished rollouts of a run (for --resume). */
  finishedKeys(runId: string): Set<string> {
    const rows = this.sql('SELECT condition, task_id FROM rollouts WHERE run_id = ?').all(
      runId,
    ) as { condition: string; task_id: string }[];
    return new Set(rows.map((r) => rolloutKey(r.condition, r.task_id)));
  }

  /** The document of a finished rollout. */
  private doc(rolloutId: string): Doc {
    const n = this.sql('SELECT doc FROM rollouts WHERE id = ?').pluck().get(rolloutId) as
      number | undefined;
    if (n === undefined) throw new NotFoundError(`no rollout ${rolloutId}`);
    return this.docs.get(n);
  }

  trajectory(rolloutId: string): Trajectory {
    return TrajectorySchema.parse(this.doc(rolloutId).trajectory());
  }

  /** The system prompt and task of a rollout (what a viewer shows above the steps). */
  trajectoryHead(rolloutId: string): Pick<Trajectory, 'system' | 'task'> {
    const { system, task } = this.doc(rolloutId).head();
    return { system, task };
  }

  /** The agent steps of a rollout, with prompt, answer and observations as their JSON texts. */
  steps(rolloutId: string): StepRow[] {
    const prompts = this.doc(rolloutId).prompts();
    return this.stepActions(rolloutId).map(({ idx, prompt_tokens, ...rest }, i) => ({
      idx,
      prompt_tokens,
      prompt: JSON.stringify(prompts[i]),
      ...rest,
    }));
  }

  /** The agent steps of a rollout without their prompts: what the agent did and saw. */
  stepActions(rolloutId: string): StepActionRow[] {
    return this.doc(rolloutId)
      .steps()
      .map((s) => ({
        idx: s.index,
        prompt_tokens: s.promptTokens,
        assistant: JSON.stringify(s.assistant),
        observations: JSON.stringify(s.observations),
      }));
  }

  events(rolloutId: string): CompressionEvent[] {
    return this.doc(rolloutId).get('events') as CompressionEvent[];
  }

  // ---- the distillation export's reads ----

  /** Task ids with candidate calls, sorted, each with whether a matching rollout succeeded. */
  exportTasks(f: RolloutFilter): { task: string; succeeded: boolean }[] {
    return exportTasks(this.db, f);
  }

  /** Candidate calls in the export's fixed order, one rollout document at a time. */
  exportCalls(f: RolloutFilter): Generator<CallRow> {
    return exportCalls(this.db, f, {
      events: (n) => this.docs.get(n).get('events') as CompressionEvent[],
      call: (row) => this.callTexts(row),
    });
  }

  // ---- storage ----

  /** Documents stored, their bytes on disk (journal included) and their bytes decompressed. */
  storageStats(): StorageStats {
    return this.sql(
      `SELECT COUNT(*) AS documents,
           COALESCE(SUM(LENGTH(data)), 0) + (SELECT COALESCE(SUM(LENGTH(data)), 0) FROM journal)
             AS storedBytes,
           COALESCE(SUM(size), 0) AS textBytes FROM docs`,
    ).get() as StorageStats;
  }

  // ---- checkpoints of multi-stage runs ----

  getState<T extends z.ZodType>(runId: string, key: string, schema: T): z.infer<T> | undefined {
    const row = this.sql('SELECT value FROM run_state WHERE run_id = ? AND key = ?').get(
      runId,
      key,
    ) as { value: string } | undefined;
    return row ? (schema.parse(JSON.parse(row.value)) as z.infer<T>) : undefined;
  }

  /** Records a checkpoint; the calls the run made outside rollouts so far go to a document. */
  setState(runId: string, key: string, value: unknown): void {
    this.flushRun(runId, false);
    this.insert(
      'run_state',
      { run_id: runId, key, value: JSON.stringify(value) },
      'INSERT OR REPLACE',
    );
  }

  // ---- guideline versions ----

  saveGuidelineVersion({ runId, createdAt, metrics, ...v }: GuidelineVersionRow): void {
    const row = { ...v, run_id: runId, created_at: createdAt, metrics: JSON.stringify(metrics) };
    this.insert('guideline_versions', row, 'INSERT OR REPLACE');
  }
}

/** `INSERT INTO table (columns) VALUES (@columns)`: the row binds by column name. */
export function insertSql(table: string, row: Record<string, unknown>, verb = 'INSERT'): string {
  const columns = Object.keys(row);
  return `${verb} INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`;
}

/** The first 16 bytes of a request hash (SHA-256 hex); of any other text, of its SHA-256. */
export function hashKey(requestHash: string): Buffer {
  return /^[0-9a-f]{32}/.test(requestHash)
    ? Buffer.from(requestHash.slice(0, 32), 'hex')
    : createHash('sha256').update(requestHash).digest().subarray(0, 16);
}

function callWhere(f: CallFilter): { sql: string; params: string[] } {
  const columns = { 'r.id': f.runId, 'i.id': f.rolloutId, 'c.role': f.role };
  const given = Object.entries(columns).filter(([, v]) => v !== undefined);
  return {
    sql: ['1 = 1', ...given.map(([c]) => `${c} = ?`)].join(' AND '),
    params: given.map(([, v]) => v!),
  };
}

export function rolloutKey(condition: string, taskId: string): string {
  return `${condition}\u0000${taskId}`;
}

function now(): string {
  return new Date().toISOString();
}

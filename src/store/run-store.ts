import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { z } from 'zod';
import {
  type CompressionEvent,
  type CallUsage,
  TrajectorySchema,
  type Trajectory,
} from '../domain/index.js';
import { NotFoundError, RunBusyError, UsageError } from '../errors.js';
import type { CallRecord, CallStore, ProviderResponse } from '../llm/index.js';
import {
  callsDocument,
  compress,
  DocCache,
  rolloutDocument,
  type CallPayload,
  type StoredStep,
} from './document.js';
import { exportCalls, exportTasks, type CallRow, type RolloutFilter } from './export-queries.js';
import { CallBatch } from './call-batch.js';
import { JournalWriter, readJournal } from './journal.js';
import { redactUrlCredentials } from '../url-credentials.js';
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
  RunRowSchema,
  type CallFilter,
  type ConditionCount,
  type FinishedRollout,
  type GuidelineVersionRow,
  type LlmCallRow,
  type NewRun,
  ROLLOUT_COLUMNS,
  rolloutRow,
  type RoleUsageRow,
  type RolloutRow,
  type RunRow,
  type RunStatus,
  type StorageStats,
} from './records.js';

export * from './records.js';
export type { StoredStep } from './document.js';

export type StoreOptions = {
  /** `read` opens the file read-only and never creates or changes it. @default 'write' */
  mode?: OpenMode;
  /** Owner identity, clock and pid check for run ownership; tests pass fakes. */
  probe?: Partial<OwnerProbe>;
  /** How often an owned run's heartbeat is written (ms). @default HEARTBEAT_MS */
  heartbeatMs?: number;
  /** Commit the calls of one event-loop turn and the next together (CallBatch). @default false */
  groupCommit?: boolean;
};

/** What every reader and writer of stored runs uses: nobody outside src/store writes SQL. */
export interface RunStore extends CallStore {
  readonly path: string;
  close(): void;
  callsOfRollout(rolloutId: string): CallUsage[];
  callStats(runId: string): { calls: number; cachedCalls: number; costUsd: number };
  calls(filter: CallFilter): LlmCallRow[];
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
  prompts(rolloutId: string): unknown[][];
  stepRecords(rolloutId: string): StoredStep[];
  events(rolloutId: string): CompressionEvent[];
  exportTasks(f: RolloutFilter): { task: string; succeeded: boolean }[];
  exportCalls(f: RolloutFilter): Generator<CallRow>;
  storageStats(): StorageStats;
  claimRun(id: string): RunRow;
  heartbeat(id: string): void;
  rollout(idOrPrefix: string): RolloutRow;
  conditionCounts(): ConditionCount[];
  usageOutsideRollouts(runId: string): RoleUsageRow[];
  guidelineVersions(runId: string): GuidelineVersionRow[];
  /** Ids of every learned (not seed) guideline version recorded, newest first. */
  learnedGuidelineIds(): string[];
  deleteRun(runId: string): { rollouts: number; calls: number };
  getState<T extends z.ZodType>(runId: string, key: string, schema: T): z.infer<T> | undefined;
  setState(runId: string, key: string, value: unknown): void;
  saveGuidelineVersion(v: GuidelineVersionRow): void;
}

/** A call's row as payload readers need it: its document, or null while it is in the journal. */
type Located = { id: number; doc: number | null };

/** A call row's CallUsage (`calls c`), by its names. */
const USAGE_COLUMNS = `c.id, c.role, c.model, c.prompt_tokens AS promptTokens,
  c.cached_tokens AS cachedTokens, c.completion_tokens AS completionTokens, c.cost_usd AS costUsd`;

/**
 * The SQLite store of runs (schema.ts). A call goes to the journal as it completes and into its
 * rollout's document when the rollout is saved (calls outside rollouts: into a run document at a
 * checkpoint or stop), so a killed process loses only work in flight.
 */
export class SqliteRunStore implements RunStore {
  private readonly db: Database.Database;
  private readonly probe: OwnerProbe;
  private readonly heartbeatMs: number;
  private readonly heartbeats = new Map<string, NodeJS.Timeout>();
  private readonly loadDoc = (n: number) => {
    const data = this.value<Buffer>('SELECT data FROM docs WHERE n = ?', n);
    if (!data) throw new Error(`document ${n} is missing from ${this.path}; the file is damaged`);
    return data;
  };
  /** Documents of call-cache hits: the rollouts of a concurrent run hit several in turn. */
  private readonly docs = new DocCache(this.loadDoc, 8);
  /** The document read last by a reader that goes through rollouts one by one. */
  private readonly lastDoc = new DocCache(this.loadDoc, 1);
  /** Payloads of the calls this process wrote to the journal, until they move to a document. */
  private readonly pending = new Map<number, CallPayload>();
  private readonly journal = new JournalWriter();
  /** Answers putCached was given, until recordCall stores the call that got them. */
  private readonly toCache = new Map<string, ProviderResponse>();
  /** Numbers of run and rollout ids (`run\0id`, `rollout\0id`). */
  private readonly numbers = new Map<string, number>();
  /** Prepared statements by their SQL: preparing costs more than running most of them. */
  private readonly statements = new Map<string, Database.Statement>();
  /** The open group commit of call rows (`groupCommit`). */
  private readonly batch: CallBatch | undefined;

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
    this.batch = opts.groupCommit ? new CallBatch(this.db) : undefined;
  }

  private sql(text: string): Database.Statement {
    let stmt = this.statements.get(text);
    if (!stmt) this.statements.set(text, (stmt = this.db.prepare(text)));
    return stmt;
  }

  private all<T>(text: string, ...params: unknown[]): T[] {
    return this.sql(text).all(...params) as T[];
  }

  private one<T>(text: string, ...params: unknown[]): T | undefined {
    return this.sql(text).get(...params) as T | undefined;
  }

  /** The first column of the first row. */
  private value<T>(text: string, ...params: unknown[]): T | undefined {
    return this.sql(text)
      .pluck()
      .get(...params) as T | undefined;
  }

  private run(text: string, ...params: unknown[]): number {
    return this.sql(text).run(...params).changes;
  }

  /**
   * Inserts a row given by its columns (`verb`: INSERT OR REPLACE…); returns its rowid. Every text
   * cell loses the credentials of the URLs in it first: a run's config holds base URLs, and an
   * error message names its endpoint (issue #60, case 4).
   */
  private insert(table: string, row: Record<string, unknown>, verb = 'INSERT'): number {
    const clean = Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, typeof v === 'string' ? redactUrlCredentials(v) : v]),
    );
    return Number(this.sql(insertSql(table, clean, verb)).run(clean).lastInsertRowid);
  }

  close(): void {
    try {
      this.batch?.commit();
    } finally {
      for (const timer of this.heartbeats.values()) clearInterval(timer);
      this.heartbeats.clear();
      this.db.close();
    }
  }

  /** The number of a run (`run`) or rollout id (`rollout`, given one at its first use). */
  private number(kind: 'run' | 'rollout', id: string, run?: number): number | undefined {
    const key = `${kind}\u0000${id}`;
    const known = this.numbers.get(key);
    if (known !== undefined) return known;
    const table = kind === 'run' ? 'runs' : 'rollout_ids';
    let n = this.value<number>(`SELECT n FROM ${table} WHERE id = ?`, id);
    if (n === undefined && run !== undefined) n = this.insert('rollout_ids', { id, run });
    if (n === undefined) return undefined;
    if (this.numbers.size >= 10_000) this.numbers.clear();
    // Cached only once committed (a lost batch forgets it).
    if (!this.db.inTransaction || this.batch?.active) {
      this.numbers.set(key, n);
      this.batch?.onLost(() => this.numbers.delete(key));
    }
    return n;
  }

  private runNumber(runId: string): number {
    const n = this.number('run', runId);
    if (n === undefined) throw new NotFoundError(`no run ${runId} in ${this.path}`);
    return n;
  }

  // ---- call cache and call log (CallStore) ----

  getCached(requestHash: string): ProviderResponse | undefined {
    const row = this.one<Located>(
      'SELECT c.id, c.doc FROM llm_cache k JOIN calls c ON c.id = k.call WHERE k.request_hash = ?',
      hashKey(requestHash),
    );
    const response = row && this.payload(row).response;
    // A copy: callers cannot change the document read for others.
    return response ? (structuredClone(response) as ProviderResponse) : undefined;
  }

  putCached(requestHash: string, _provider: string, _model: string, response: ProviderResponse) {
    this.toCache.set(requestHash, response);
  }

  /** Records a call and its payload (in the journal) in one transaction. */
  recordCall(call: CallRecord): number {
    const batched = this.batch?.join() ?? false;
    const run = this.runNumber(call.ctx.runId);
    const { rolloutId, taskId, step, role } = call.ctx;
    const rollout = rolloutId === undefined ? null : this.number('rollout', rolloutId, run)!;
    const { request, response, usage } = call;
    const payload = { id: 0, taskId: taskId ?? null, createdAt: Date.now(), request, response };
    const row = this.journal.row(rollout, payload);
    const cache = response !== null && this.toCache.get(call.requestHash) === response;
    const columns = [
      run,
      rollout,
      step ?? null,
      role,
      call.provider,
      call.model,
      hashKey(call.requestHash),
      usage.promptTokens,
      usage.cachedPromptTokens,
      usage.completionTokens,
      call.costUsd,
      call.latencyMs,
      call.cached ? 1 : 0,
      call.error === null ? null : redactUrlCredentials(call.error),
    ];
    let id: number;
    try {
      id = (this.writeCall ??= this.callWriter()).immediate(columns, row.text, cache);
    } catch (err) {
      row.undo();
      if (batched) this.batch!.failed(err);
      throw err;
    }
    this.toCache.delete(call.requestHash);
    this.pending.set(id, { ...payload, id });
    if (batched) {
      this.batch!.onLost(() => {
        this.pending.delete(id);
        row.undo();
      });
    }
    return id;
  }

  /** Resolves once every call recorded so far is committed; rejects if that commit failed. */
  committed(): Promise<void> | undefined {
    return this.batch?.committed();
  }

  /** recordCall's transaction, made once: building it per call cost more than its inserts. */
  private writeCall: ReturnType<SqliteRunStore['callWriter']> | undefined;

  private callWriter() {
    const call = `INSERT INTO calls (run, rollout, step, role, provider, model, request_hash,
      prompt_tokens, cached_tokens, completion_tokens, cost_usd, latency_ms, cached, error)
      VALUES (${Array(14).fill('?').join(', ')})`;
    const journal = 'INSERT INTO journal (call, data) VALUES (?, ?)';
    const cache = 'INSERT OR REPLACE INTO llm_cache (request_hash, call) VALUES (?, ?)';
    return this.db.transaction((columns: unknown[], data: string, cached: boolean) => {
      const id = Number(this.sql(call).run(columns).lastInsertRowid);
      this.sql(journal).run(id, data);
      if (cached) this.sql(cache).run(columns[6], id);
      return id;
    });
  }

  /** A call's payload, from its document or the journal. */
  private payload({ id, doc }: Located, docs = this.docs): CallPayload {
    const found = doc === null ? this.journaled(id) : docs.get(doc).call(id);
    if (found?.id !== id) {
      throw new Error(`call ${id} is missing from ${this.path}; the file is damaged`);
    }
    return found;
  }

  private journaled(id: number): CallPayload | undefined {
    const mine = this.pending.get(id);
    if (mine) return mine;
    const c = this.one<{ run: number; rollout: number | null }>(
      'SELECT run, rollout FROM calls WHERE id = ?',
      id,
    )!;
    return this.unfiled('c.run = ? AND c.rollout IS ? AND c.id <= ?', c.run, c.rollout, id).at(-1);
  }

  /**
   * The calls still in the journal that `where` selects (of `calls c`), in call order. A row's text
   * is read only for calls this process does not hold: a rollout's own calls are all in `pending`,
   * and reading their rows back was 0.14 s of an 8-task optimize's 2.3 s of saves (issue #28).
   */
  private unfiled(where: string, ...params: unknown[]): CallPayload[] {
    const rows = this.all<{ id: number; rollout: number | null }>(
      `SELECT c.id, c.rollout FROM calls c JOIN journal j ON j.call = c.id
         WHERE c.doc IS NULL AND ${where} ORDER BY c.id`,
      ...params,
    );
    const data = (id: number) =>
      this.value<string | Buffer>('SELECT data FROM journal WHERE call = ?', id)!;
    return readJournal(rows, (id) => this.pending.get(id), data);
  }

  /** Writes a document with `calls` out of the journal (and `andThen`), in one transaction. */
  private writeDocument(
    run: number,
    calls: CallPayload[],
    raw: Buffer,
    andThen = (_: number) => {},
  ) {
    const data = compress(raw);
    this.db
      .transaction(() => {
        const doc = this.insert('docs', { run, size: raw.length, data });
        andThen(doc);
        // One statement each for all the calls, not two per call (issue #28: the save's
        // transaction 0.63 → 0.55 s in an 8-task optimize's profile).
        const ids = JSON.stringify(calls.map((c) => c.id));
        this.run('UPDATE calls SET doc = ? WHERE id IN (SELECT value FROM json_each(?))', doc, ids);
        this.run('DELETE FROM journal WHERE call IN (SELECT value FROM json_each(?))', ids);
      })
      .immediate();
    for (const { id } of calls) this.pending.delete(id);
  }

  /** Moves a run's journal calls outside rollouts (`all`: and of unfinished ones) to a document. */
  private flushRun(runId: string, all: boolean): void {
    const run = this.number('run', runId);
    if (this.db.readonly || run === undefined) return;
    const calls = this.unfiled(`c.run = ? ${all ? '' : 'AND c.rollout IS NULL'}`, run);
    if (calls.length > 0) this.writeDocument(run, calls, callsDocument(calls));
    if (!all) return;
    this.journal.clear();
    // The journal's pages, free now, go back to the disk.
    this.db.pragma('incremental_vacuum');
  }

  callsOfRollout(rolloutId: string): CallUsage[] {
    return this.all(
      `SELECT ${USAGE_COLUMNS}
         FROM calls c JOIN rollout_ids i ON i.n = c.rollout WHERE i.id = ? ORDER BY c.id`,
      rolloutId,
    );
  }

  /** Calls and cost of a run, and how many were served from the cache. */
  callStats(runId: string): { calls: number; cachedCalls: number; costUsd: number } {
    return this.one(
      `SELECT COUNT(*) AS calls, COALESCE(SUM(c.cached), 0) AS cachedCalls,
           COALESCE(SUM(c.cost_usd), 0) AS costUsd
         FROM calls c JOIN runs r ON r.n = c.run WHERE r.id = ?`,
      runId,
    )!;
  }

  /** Recorded calls in the order they were made, with their requests and responses. */
  calls(f: CallFilter): LlmCallRow[] {
    const given = Object.entries({ 'r.id': f.runId, 'i.id': f.rolloutId, 'c.role': f.role });
    const where = given.filter(([, v]) => v !== undefined);
    type Row = Omit<LlmCallRow, 'taskId' | 'request' | 'response' | 'cached' | 'createdAt'>;
    const rows = this.all<Row & { doc: number | null; cached: number }>(
      `SELECT ${USAGE_COLUMNS}, c.step, c.provider, c.latency_ms AS latencyMs, c.cached, c.error,
           c.doc, lower(hex(c.request_hash)) AS requestHash, r.id AS runId, i.id AS rolloutId
         FROM calls c JOIN runs r ON r.n = c.run LEFT JOIN rollout_ids i ON i.n = c.rollout
         WHERE ${['1 = 1', ...where.map(([c]) => `${c} = ?`)].join(' AND ')} ORDER BY c.id`,
      ...where.map(([, v]) => v),
    );
    return rows.map(({ doc, cached, ...c }) => {
      const { taskId, createdAt, ...payload } = this.payload({ id: c.id, doc });
      const at = new Date(createdAt).toISOString();
      return { ...c, taskId, ...callTexts(payload), cached: cached === 1, createdAt: at };
    });
  }

  // ---- runs ----

  /** Records a new run, owned by this process until it stops. */
  createRun(run: NewRun): void {
    this.batch?.commit();
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

  /** Refuses to change a run another live process owns (issue #31, item 6). */
  private checkOwner(run: RunRow, fix: string): void {
    if (run.status === 'running' && !isSelf(run.owner, this.probe)) {
      const by = describeOwner(run.owner, this.probe);
      throw new RunBusyError(`run ${run.id} is being run by ${by}; ${fix}`);
    }
  }

  /** Takes over a run to resume it, unless another live process owns it. */
  claimRun(id: string): RunRow {
    this.batch?.commit();
    const claim = this.db.transaction(() => {
      // getRun already shows a run whose owner is gone as interrupted.
      const fix = 'wait for it to finish or stop it (Ctrl-C) before resuming';
      this.checkOwner(this.getRun(id), fix);
      const { pid, host } = this.probe.self;
      this.run(
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
    this.batch?.commit();
    const { pid, host } = this.probe.self;
    const sql =
      'UPDATE runs SET heartbeat_at = ? WHERE id = ? AND owner_pid = ? AND owner_host = ?';
    this.run(sql, this.probe.now(), id, pid, host);
  }

  private startHeartbeat(id: string): void {
    if (this.db.readonly || this.heartbeats.has(id)) return;
    // The heartbeat never keeps a finished command alive.
    this.heartbeats.set(id, setInterval(() => this.heartbeat(id), this.heartbeatMs).unref());
  }

  getRun(id: string): RunRow {
    const row = this.one('SELECT * FROM runs WHERE id = ?', id);
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
    const sql = 'SELECT * FROM runs WHERE ? IS NULL OR kind = ? ORDER BY created_at DESC, n DESC';
    return this.all(sql, kind || null, kind).map((r) => this.toRunRow(r));
  }

  /** The newest run that has at least one stored rollout, of any kind; null when there is none. */
  latestRunWithRollouts(): RunRow | null {
    const row = this.one(
      `SELECT * FROM runs r WHERE EXISTS (SELECT 1 FROM rollouts o WHERE o.run_id = r.id)
       ORDER BY r.created_at DESC, r.n DESC LIMIT 1`,
    );
    return row ? this.toRunRow(row) : null;
  }

  /** Sets a run's status; any status but `running` ends this process's ownership (heartbeat). */
  setRunStatus(id: string, status: RunStatus, summary?: unknown): void {
    this.batch?.commit();
    if (status !== 'running') {
      clearInterval(this.heartbeats.get(id));
      this.heartbeats.delete(id);
      this.flushRun(id, true);
    }
    const finished = status === 'running' ? null : now();
    const json = summary === undefined ? null : redactUrlCredentials(JSON.stringify(summary));
    this.run(
      'UPDATE runs SET status = ?, finished_at = ?, summary = COALESCE(?, summary) WHERE id = ?',
      status,
      finished,
      json,
      id,
    );
  }

  // ---- rollouts ----

  /** Stores a finished rollout's document (its calls out of the journal) and row at once. */
  saveRollout(r: FinishedRollout): void {
    this.batch?.commit();
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
    return this.all(sql, runId, condition || null, condition).map(rolloutRow);
  }

  /** One rollout by id, or by a unique prefix of its id (as `acon runs show` prints them). */
  rollout(idOrPrefix: string): RolloutRow {
    const prefix = `${idOrPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const exact = this.one(`SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE id = ?`, idOrPrefix);
    const rows = exact
      ? [exact]
      : this.all(
          `SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE id LIKE ? ESCAPE '\\' LIMIT 2`,
          prefix,
        );
    if (rows.length === 1) return rolloutRow(rows[0]);
    if (rows.length > 1) {
      const msg = `rollout id prefix "${idOrPrefix}" matches several rollouts; give more characters`;
      throw new UsageError(msg);
    }
    throw new NotFoundError(
      `no rollout ${idOrPrefix} in ${this.path}; list a run's rollouts with \`acon runs show RUN\``,
    );
  }

  /** Rollouts and successes per split and condition of each run (for `acon runs`), in one query. */
  conditionCounts(): ConditionCount[] {
    return this.all(
      `SELECT run_id AS runId, split, condition, COUNT(*) AS rollouts, SUM(success) AS successes
         FROM rollouts GROUP BY run_id, split, condition ORDER BY run_id, MIN(rowid)`,
    );
  }

  /**
   * Usage by role of the calls no finished rollout's metrics count: analyzer, updater, rollouts
   * that never finished (report/cost-by-role.ts adds the rest; summing every call row read them all).
   */
  usageOutsideRollouts(runId: string): RoleUsageRow[] {
    return this.all(
      `SELECT c.role, COUNT(*) AS calls, COALESCE(SUM(c.prompt_tokens), 0) AS inputTokens,
           COALESCE(SUM(c.cached_tokens), 0) AS cachedTokens,
           COALESCE(SUM(c.completion_tokens), 0) AS outputTokens,
           COALESCE(SUM(c.cost_usd), 0) AS costUsd
         FROM calls c
         -- +c.run: found by the rollout index (rollout IS NULL), not by every call of the run
         WHERE (c.rollout IS NULL AND +c.run = @run)
           OR c.rollout IN (SELECT i.n FROM rollout_ids i WHERE i.run = @run
             AND NOT EXISTS (SELECT 1 FROM rollouts o WHERE o.n = i.n))
         GROUP BY c.role ORDER BY c.role`,
      { run: this.runNumber(runId) },
    );
  }

  learnedGuidelineIds(): string[] {
    const sql = `SELECT id FROM guideline_versions WHERE phase != 'seed' ORDER BY created_at DESC, id DESC`;
    return this.all<{ id: string }>(sql).map((r) => r.id);
  }

  /** Guideline versions created by a run (its lineage), oldest first. */
  guidelineVersions(runId: string): GuidelineVersionRow[] {
    const rows = this.all(
      `SELECT id, kind, parent, phase, run_id AS runId, status, path, text, metrics,
           created_at AS createdAt FROM guideline_versions WHERE run_id = ? ORDER BY created_at, id`,
      runId,
    );
    return rows.map((r) => GuidelineVersionRowSchema.parse(r));
  }

  /**
   * Deletes a run with its rollouts, documents, calls, their cache entries and checkpoints, in one
   * transaction; guideline versions stay (files on disk name them). Refused while another live
   * process owns the run.
   */
  deleteRun(runId: string) {
    this.batch?.commit();
    const ofCalls = 'IN (SELECT id FROM calls WHERE run = ?)';
    const remove = this.db.transaction(() => {
      // Checked in the transaction: a run resumed meanwhile is not pulled from under its writer.
      const row = this.getRun(runId);
      const run = this.runNumber(runId);
      const fix = `stop that process first (Ctrl-C in its terminal, or kill ${row.owner.pid}), then delete the run`;
      this.checkOwner(row, fix);
      this.run(`DELETE FROM llm_cache WHERE call ${ofCalls}`, run);
      this.run(`DELETE FROM journal WHERE call ${ofCalls}`, run);
      const calls = this.run('DELETE FROM calls WHERE run = ?', run);
      const rollouts = this.run('DELETE FROM rollouts WHERE run_id = ?', runId);
      this.run('DELETE FROM rollout_ids WHERE run = ?', run);
      this.run('DELETE FROM docs WHERE run = ?', run);
      this.run('DELETE FROM run_state WHERE run_id = ?', runId);
      this.run('DELETE FROM runs WHERE n = ?', run);
      return { rollouts, calls };
    });
    const deleted = remove.immediate();
    this.numbers.clear();
    this.docs.clear();
    this.lastDoc.clear();
    return deleted;
  }

  /** The conditions the run has rollouts of, sorted. */
  runConditions(runId: string): string[] {
    const sql = 'SELECT DISTINCT condition FROM rollouts WHERE run_id = ? ORDER BY condition';
    return this.sql(sql).pluck().all(runId) as string[];
  }

  /** `condition\u0000taskId` keys of the finished rollouts of a run (for --resume). */
  finishedKeys(runId: string): Set<string> {
    const rows = this.all<{ condition: string; task_id: string }>(
      'SELECT condition, task_id FROM rollouts WHERE run_id = ?',
      runId,
    );
    return new Set(rows.map((r) => rolloutKey(r.condition, r.task_id)));
  }

  /** The document of a finished rollout. */
  private doc(rolloutId: string) {
    const n = this.value<number>('SELECT doc FROM rollouts WHERE id = ?', rolloutId);
    if (n === undefined) throw new NotFoundError(`no rollout ${rolloutId}`);
    return this.lastDoc.get(n);
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

  // ---- the distillation export's reads ----

  /** Task ids with candidate calls, sorted, each with whether a matching rollout succeeded. */
  exportTasks(f: RolloutFilter) {
    return exportTasks(this.db, f);
  }

  /** Candidate calls in the export's fixed order, one rollout document at a time. */
  exportCalls(f: RolloutFilter): Generator<CallRow> {
    return exportCalls(this.db, f, {
      events: (n) => this.lastDoc.get(n).get('events') as CompressionEvent[],
      call: (row) => callTexts(this.payload(row, this.lastDoc)),
    });
  }

  /** Documents stored, their bytes on disk (journal included) and their bytes decompressed. */
  storageStats(): StorageStats {
    return this.one(
      `SELECT COUNT(*) AS documents,
           COALESCE(SUM(LENGTH(data)), 0) + (SELECT COALESCE(SUM(LENGTH(data)), 0) FROM journal)
             AS storedBytes,
           COALESCE(SUM(size), 0) AS textBytes FROM docs`,
    )!;
  }

  // ---- checkpoints of multi-stage runs, guideline versions ----

  getState<T extends z.ZodType>(runId: string, key: string, schema: T): z.infer<T> | undefined {
    const sql = 'SELECT value FROM run_state WHERE run_id = ? AND key = ?';
    const value = this.value<string>(sql, runId, key);
    return value === undefined ? undefined : (schema.parse(JSON.parse(value)) as z.infer<T>);
  }

  /** Records a checkpoint; the calls the run made outside rollouts so far go to a document. */
  setState(runId: string, key: string, value: unknown): void {
    this.batch?.commit();
    this.flushRun(runId, false);
    const row = { run_id: runId, key, value: JSON.stringify(value) };
    this.insert('run_state', row, 'INSERT OR REPLACE');
  }

  saveGuidelineVersion({ runId, createdAt, metrics, ...v }: GuidelineVersionRow): void {
    this.batch?.commit();
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

/** A call's request and response as the JSON texts they were recorded as. */
function callTexts({ request, response }: Pick<CallPayload, 'request' | 'response'>) {
  const answer = response === null ? null : JSON.stringify(response);
  return { request: JSON.stringify(request), response: answer };
}

export function rolloutKey(condition: string, taskId: string): string {
  return `${condition}\u0000${taskId}`;
}

function now(): string {
  return new Date().toISOString();
}

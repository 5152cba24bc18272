import type Database from 'better-sqlite3';
import type { z } from 'zod';
import type { CompressionEvent } from '../domain/compression-event.js';
import { TrajectorySchema, type Trajectory } from '../domain/trajectory.js';
import { NotFoundError, RunBusyError, UsageError } from '../errors.js';
import type { CallRecord, CallStore } from '../llm/call-store.js';
import type { ProviderResponse } from '../llm/types.js';
import type { CallUsage } from '../domain/rollout-metrics.js';
import { BlobStore, type BlobCompression } from './blobs.js';
import {
  type UsageColumns,
  keyColumn,
  keyOf,
  messagesJson,
  putMessages,
  putRequestParts,
  putResponseParts,
  putTrajectory,
  requestFromParts,
  responseFromParts,
  trajectoryHead,
  trajectoryJson,
  type StepKeys,
} from './codec.js';
import { ExportQueries, type CallRow, type RolloutFilter } from './export-queries.js';
import { openDatabase, type OpenMode } from './open.js';
import { sweepBlobs } from './sweep.js';
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
  RolloutRowSchema,
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
  /** How new texts are compressed in the blob table. @default 'deflate' */
  compression?: BlobCompression;
  /** `read` opens the file read-only and never creates or migrates it. @default 'write' */
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
  conditionCounts(): { runId: string; condition: string; rollouts: number; successes: number }[];
  usageByRole(runId: string): {
    role: string;
    calls: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
  }[];
  guidelineVersions(runId: string): GuidelineVersionRow[];
  deleteRun(runId: string): { rollouts: number; calls: number };
  getState<T extends z.ZodType>(runId: string, key: string, schema: T): z.infer<T> | undefined;
  setState(runId: string, key: string, value: unknown): void;
  saveGuidelineVersion(v: GuidelineVersionRow): void;
}

/**
 * The SQLite store of runs, rollouts, steps, compression events, LLM calls, the call cache and
 * guideline versions (better-sqlite3, WAL). Each write commits at once, and a rollout with all
 * its steps and events is one transaction: a killed process loses only work in flight.
 *
 * Messages, observations, compressor texts, tool lists and system prompts are stored once each
 * in the content-addressed `blobs` table (src/store/codec.ts); rows refer to them by key, so the
 * database grows with the new content of each step, not with the length of each prompt.
 */
export class SqliteRunStore implements RunStore {
  private readonly db: Database.Database;
  private readonly blobs: BlobStore;
  private readonly exportQueries: ExportQueries;
  private readonly probe: OwnerProbe;
  private readonly heartbeatMs: number;
  private readonly heartbeats = new Map<string, NodeJS.Timeout>();

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
    this.blobs = new BlobStore(this.db, opts.compression ?? 'deflate');
    this.exportQueries = new ExportQueries(this.db, this.blobs);
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

  close(): void {
    for (const timer of this.heartbeats.values()) clearInterval(timer);
    this.heartbeats.clear();
    this.db.close();
  }

  // ---- call cache and call log (CallStore) ----

  getCached(requestHash: string): ProviderResponse | undefined {
    const row = this.sql('SELECT response FROM llm_cache WHERE request_hash = ?').get(
      requestHash,
    ) as { response: string } | undefined;
    return row ? (JSON.parse(row.response) as ProviderResponse) : undefined;
  }

  putCached(requestHash: string, provider: string, model: string, response: ProviderResponse) {
    this.sql(
      `INSERT OR REPLACE INTO llm_cache (request_hash, provider, model, response, created_at)
         VALUES (?, ?, ?, ?, ?)`,
    ).run(requestHash, provider, model, JSON.stringify(response), now());
  }

  recordCall(call: CallRecord): number {
    const usage = {
      prompt_tokens: call.usage.promptTokens,
      cached_tokens: call.usage.cachedPromptTokens,
      completion_tokens: call.usage.completionTokens,
    };
    const request = putRequestParts(this.blobs, call.request);
    const response = call.response ? putResponseParts(this.blobs, call.response, usage) : null;
    const info = this.sql(
      `INSERT INTO llm_calls (context, step, request_hash, messages_key, response_key,
           response_rest, prompt_tokens, cached_tokens, completion_tokens, cost_usd, latency_ms,
           cached, error, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      this.callContext(call, request.rest),
      call.ctx.step ?? null,
      keyColumn(call.requestHash),
      keyColumn(request.messages),
      response ? keyColumn(response.message) : null,
      response?.rest ?? null,
      usage.prompt_tokens,
      usage.cached_tokens,
      usage.completion_tokens,
      call.costUsd,
      call.latencyMs,
      call.cached ? 1 : 0,
      call.error,
      Date.now(),
    );
    return Number(info.lastInsertRowid);
  }

  /** call_contexts ids by their columns, for the calls this process records. */
  private readonly contexts = new Map<string, number>();

  /**
   * The id of the call's run, rollout, task, role, provider, model and request settings (its
   * request without the messages): a few per rollout.
   */
  private callContext(call: CallRecord, requestKey: string): number {
    const values = [
      call.ctx.runId,
      call.ctx.rolloutId ?? null,
      call.ctx.taskId ?? null,
      call.ctx.role,
      call.provider,
      call.model,
    ] as const;
    const key = [...values, requestKey].join('\u0000');
    const known = this.contexts.get(key);
    if (known !== undefined) return known;
    const found = this.sql(
      `SELECT id FROM call_contexts WHERE run_id = ? AND rollout_id IS ? AND task_id IS ?
         AND role = ? AND provider = ? AND model = ? AND request_key = ?`,
    )
      .pluck()
      .get(...values, keyColumn(requestKey)) as number | undefined;
    const id =
      found ??
      Number(
        this.sql(
          `INSERT INTO call_contexts (run_id, rollout_id, task_id, role, provider, model,
               request_key) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        ).run(...values, keyColumn(requestKey)).lastInsertRowid,
      );
    // A context outlives its rollout's calls only in memory; keep the map small.
    if (this.contexts.size >= MAX_REMEMBERED_CONTEXTS) this.contexts.clear();
    this.contexts.set(key, id);
    return id;
  }

  callsOfRollout(rolloutId: string): CallUsage[] {
    return this.sql(
      `SELECT c.id, x.role, x.model, c.prompt_tokens AS promptTokens,
           c.cached_tokens AS cachedTokens, c.completion_tokens AS completionTokens,
           c.cost_usd AS costUsd
         FROM ${CALLS} WHERE x.rollout_id = ? ORDER BY c.id`,
    ).all(rolloutId) as CallUsage[];
  }

  /** Calls and cost of a run, optionally only those not served from the cache. */
  callStats(runId: string): { calls: number; cachedCalls: number; costUsd: number } {
    const row = this.sql(
      `SELECT COUNT(*) AS calls, COALESCE(SUM(c.cached), 0) AS cachedCalls,
           COALESCE(SUM(c.cost_usd), 0) AS costUsd FROM ${CALLS} WHERE x.run_id = ?`,
    ).get(runId) as { calls: number; cachedCalls: number; costUsd: number };
    return row;
  }

  /** Recorded calls in the order they were made, with their requests and responses. */
  calls(filter: CallFilter): LlmCallRow[] {
    const w = callWhere(filter);
    const rows = this.sql(
      `SELECT c.*, x.run_id, x.rollout_id, x.task_id, x.role, x.provider, x.model, x.request_key
         FROM ${CALLS} WHERE ${w.sql} ORDER BY c.id`,
    ).all(...w.params) as (Record<string, unknown> & UsageColumns)[];
    return rows.map((c) => ({
      id: c.id as number,
      runId: c.run_id as string,
      rolloutId: c.rollout_id as string | null,
      taskId: c.task_id as string | null,
      step: c.step as number | null,
      role: c.role as string,
      provider: c.provider as string,
      model: c.model as string,
      requestHash: keyOf(c.request_hash),
      request: requestFromParts(this.blobs, keyOf(c.messages_key), keyOf(c.request_key)),
      response:
        c.response_key === null
          ? null
          : responseFromParts(
              this.blobs,
              keyOf(c.response_key),
              c.response_rest as string | null,
              c,
            ),
      promptTokens: c.prompt_tokens as number,
      cachedTokens: c.cached_tokens as number,
      completionTokens: c.completion_tokens as number,
      costUsd: c.cost_usd as number,
      latencyMs: c.latency_ms as number,
      cached: c.cached === 1,
      error: c.error as string | null,
      createdAt: isoTime(c.created_at),
    }));
  }

  countCalls(filter: CallFilter): number {
    const w = callWhere(filter);
    return this.sql(`SELECT COUNT(*) FROM ${CALLS} WHERE ${w.sql}`)
      .pluck()
      .get(...w.params) as number;
  }

  // ---- runs ----

  /** Records a new run, owned by this process until it stops. */
  createRun(run: NewRun): void {
    const self = this.probe.self;
    this.sql(
      `INSERT INTO runs (id, kind, command, bench, provider, models, simulated, params, config,
           status, created_at, owner_pid, owner_host, heartbeat_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
    ).run(
      run.id,
      run.kind,
      run.command,
      run.bench,
      run.provider,
      JSON.stringify(run.models),
      run.simulated ? 1 : 0,
      JSON.stringify(run.params),
      JSON.stringify(run.config),
      now(),
      self.pid,
      self.host,
      this.probe.now(),
    );
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
      ? this.sql('SELECT * FROM runs WHERE kind = ? ORDER BY created_at DESC, rowid DESC').all(kind)
      : this.sql('SELECT * FROM runs ORDER BY created_at DESC, rowid DESC').all();
    return rows.map((r) => this.toRunRow(r));
  }

  /** The newest run that has at least one stored rollout, of any kind; null when there is none. */
  latestRunWithRollouts(): RunRow | null {
    const row = this.sql(
      `SELECT * FROM runs r WHERE EXISTS (SELECT 1 FROM rollouts o WHERE o.run_id = r.id)
       ORDER BY r.created_at DESC, r.rowid DESC LIMIT 1`,
    ).get();
    return row ? this.toRunRow(row) : null;
  }

  /** Sets a run's status; any status but `running` ends this process's ownership (heartbeat). */
  setRunStatus(id: string, status: RunStatus, summary?: unknown): void {
    if (status !== 'running') this.stopHeartbeat(id);
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

  /** Stores a finished rollout with its steps and events in one transaction. */
  saveRollout(r: FinishedRollout): void {
    const insertRollout = this.sql(
      `INSERT INTO rollouts (id, run_id, condition, task_id, split, strategy, guideline_obs,
         guideline_hist, status, success, score, steps, peak_input_tokens, cost_usd, metrics,
         evaluation, trajectory_ref, error, started_at, finished_at, episode_meta)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertStep = this.sql(
      `INSERT INTO steps (rollout_id, idx, prompt_key, prompt_tokens, assistant_key,
         observations_key, observation_tokens, call_id, latency_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertEvent = this.sql(
      `INSERT INTO compression_events (rollout_id, seq, step, kind, input_tokens, output_tokens,
         input_key, output_key, guideline_id, call_id, failed)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // IMMEDIATE: the transaction reads (blob keys) before it writes; a deferred one would fail at
    // once with SQLITE_BUSY when another process wrote in between, instead of waiting its turn.
    this.db
      .transaction(() => {
        // The steps' texts first: the trajectory refers to the keys of the steps its turns
        // repeat. Their rows follow the rollout's (foreign key).
        const stepKeys = r.steps.map((s) => ({
          prompt: putMessages(this.blobs, s.prompt),
          assistant: this.blobs.putJson(s.assistant),
          observations: putMessages(this.blobs, s.observations),
        }));
        insertRollout.run(
          r.id,
          r.runId,
          r.condition,
          r.taskId,
          r.split,
          r.strategy,
          r.guidelineObs,
          r.guidelineHist,
          r.status,
          r.metrics.success ? 1 : 0,
          r.metrics.score,
          r.metrics.steps,
          r.metrics.peakInputTokens,
          r.metrics.costUsd,
          JSON.stringify(r.metrics),
          keyColumn(this.blobs.put(JSON.stringify(r.evaluation))),
          putTrajectory(this.blobs, r.trajectory, stepKeys),
          r.error,
          r.startedAt,
          r.finishedAt,
          r.episodeMeta ? JSON.stringify(r.episodeMeta) : null,
        );
        const callMessages = this.sql('SELECT messages_key FROM llm_calls WHERE id = ?').pluck();
        r.steps.forEach((s, i) => {
          const keys = stepKeys[i]!;
          // The prompt is the agent call's message list, kept once in its llm_calls row.
          const sent = callMessages.get(s.callId);
          const same = sent !== undefined && keyOf(sent) === keys.prompt;
          insertStep.run(
            r.id,
            s.index,
            same ? null : keyColumn(keys.prompt),
            s.promptTokens,
            keyColumn(keys.assistant),
            keyColumn(keys.observations),
            s.observationTokens,
            s.callId,
            s.latencyMs,
          );
        });
        r.events.forEach((e, seq) => {
          insertEvent.run(
            r.id,
            seq,
            e.step,
            e.kind,
            e.inputTokens,
            e.outputTokens,
            keyColumn(this.blobs.put(e.input)),
            keyColumn(this.blobs.put(e.output)),
            e.guidelineId,
            e.callId,
            e.failed ? 1 : 0,
          );
        });
      })
      .immediate();
  }

  rollouts(runId: string, condition?: string): RolloutRow[] {
    const rows = condition
      ? this.sql('SELECT * FROM rollouts WHERE run_id = ? AND condition = ? ORDER BY task_id').all(
          runId,
          condition,
        )
      : this.sql('SELECT * FROM rollouts WHERE run_id = ? ORDER BY condition, task_id').all(runId);
    return rows.map((r) => this.toRolloutRow(r));
  }

  /** A rollouts row as read: its evaluation is a blob (schema v8). */
  private toRolloutRow(raw: unknown): RolloutRow {
    const row = raw as { evaluation: unknown };
    return RolloutRowSchema.parse({ ...row, evaluation: this.blobs.get(keyOf(row.evaluation)) });
  }

  /** One rollout by id, or by a unique prefix of its id (as `acon runs show` prints them). */
  rollout(idOrPrefix: string): RolloutRow {
    const exact = this.sql('SELECT * FROM rollouts WHERE id = ?').get(idOrPrefix);
    if (exact) return this.toRolloutRow(exact);
    const rows = this.sql("SELECT * FROM rollouts WHERE id LIKE ? ESCAPE '\\' LIMIT 2").all(
      `${idOrPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    );
    if (rows.length === 1) return this.toRolloutRow(rows[0]);
    if (rows.length > 1) {
      throw new UsageError(
        `rollout id prefix "${idOrPrefix}" matches several rollouts; give more characters`,
      );
    }
    throw new NotFoundError(
      `no rollout ${idOrPrefix} in ${this.path}; list a run's rollouts with \`acon runs show RUN\``,
    );
  }

  /** Rollouts and successes per condition of each run (for `acon runs`), in one query. */
  conditionCounts(): { runId: string; condition: string; rollouts: number; successes: number }[] {
    return this.sql(
      `SELECT run_id AS runId, condition, COUNT(*) AS rollouts, SUM(success) AS successes
         FROM rollouts GROUP BY run_id, condition ORDER BY run_id, MIN(rowid)`,
    ).all() as { runId: string; condition: string; rollouts: number; successes: number }[];
  }

  /** LLM calls of a run by role: calls, tokens and cost (the report's cost-by-role view). */
  usageByRole(runId: string): {
    role: string;
    calls: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
  }[] {
    return this.sql(
      `SELECT x.role, COUNT(*) AS calls, COALESCE(SUM(c.prompt_tokens), 0) AS inputTokens,
           COALESCE(SUM(c.completion_tokens), 0) AS outputTokens,
           COALESCE(SUM(c.cost_usd), 0) AS costUsd
         FROM ${CALLS} WHERE x.run_id = ? GROUP BY x.role ORDER BY x.role`,
    ).all(runId) as {
      role: string;
      calls: number;
      inputTokens: number;
      outputTokens: number;
      costUsd: number;
    }[];
  }

  /** Guideline versions created by a run (its lineage), oldest first. */
  guidelineVersions(runId: string): GuidelineVersionRow[] {
    const rows = this.sql(
      'SELECT * FROM guideline_versions WHERE run_id = ? ORDER BY created_at, id',
    ).all(runId) as Record<string, unknown>[];
    return rows.map((r) => ({
      id: r.id as string,
      kind: r.kind as 'obs' | 'hist',
      parent: (r.parent as string | null) ?? null,
      phase: r.phase as string,
      runId: (r.run_id as string | null) ?? null,
      status: r.status as string,
      path: r.path as string,
      text: r.text as string,
      metrics: JSON.parse(r.metrics as string) as Record<string, unknown>,
      createdAt: r.created_at as string,
    }));
  }

  /**
   * Deletes a run and every row that belongs to it (rollouts, steps, compression events, LLM
   * calls, checkpoints) in one transaction. The call cache and guideline versions stay: they
   * are shared with other runs and with the guideline files on disk.
   */
  deleteRun(runId: string): { rollouts: number; calls: number } {
    this.getRun(runId);
    const byRollout = (table: string) =>
      this.sql(
        `DELETE FROM ${table} WHERE rollout_id IN (SELECT id FROM rollouts WHERE run_id = ?)`,
      );
    const deleted = this.db
      .transaction(() => {
        byRollout('compression_events').run(runId);
        byRollout('steps').run(runId);
        const rollouts = this.sql('DELETE FROM rollouts WHERE run_id = ?').run(runId).changes;
        const calls = this.sql(
          'DELETE FROM llm_calls WHERE context IN (SELECT id FROM call_contexts WHERE run_id = ?)',
        ).run(runId).changes;
        this.sql('DELETE FROM call_contexts WHERE run_id = ?').run(runId);
        this.sql('DELETE FROM run_state WHERE run_id = ?').run(runId);
        this.sql('DELETE FROM runs WHERE id = ?').run(runId);
        return { rollouts, calls };
      })
      .immediate();
    this.contexts.clear();
    // Texts no other run shares go too, so deleting a run gives its space back.
    sweepBlobs(this.db, this.blobs);
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

  trajectory(rolloutId: string): Trajectory {
    const ref = this.sql('SELECT trajectory_ref FROM rollouts WHERE id = ?')
      .pluck()
      .get(rolloutId) as string | undefined;
    if (ref === undefined) throw new NotFoundError(`no rollout ${rolloutId}`);
    const steps = () => this.stepKeys(rolloutId);
    return TrajectorySchema.parse(JSON.parse(trajectoryJson(this.blobs, ref, steps)));
  }

  /** The message keys of a rollout's steps, in order. */
  private stepKeys(rolloutId: string): StepKeys[] {
    const rows = this.sql(
      'SELECT assistant_key, observations_key FROM steps WHERE rollout_id = ? ORDER BY idx',
    ).all(rolloutId) as Record<string, unknown>[];
    return rows.map((r) => ({
      assistant: keyOf(r.assistant_key),
      observations: keyOf(r.observations_key),
    }));
  }

  /** The agent steps of a rollout, with prompt, answer and observations as their JSON texts. */
  steps(rolloutId: string): StepRow[] {
    const rows = this.sql(
      `SELECT s.idx, s.prompt_tokens, COALESCE(s.prompt_key, c.messages_key) AS prompt_key,
           s.assistant_key, s.observations_key
         FROM steps s LEFT JOIN llm_calls c ON c.id = s.call_id
         WHERE s.rollout_id = ? ORDER BY s.idx`,
    ).all(rolloutId) as {
      idx: number;
      prompt_tokens: number;
      prompt_key: Buffer | string;
      assistant_key: Buffer | string;
      observations_key: Buffer | string;
    }[];
    return rows.map((r) => ({
      idx: r.idx,
      prompt_tokens: r.prompt_tokens,
      prompt: messagesJson(this.blobs, keyOf(r.prompt_key)),
      assistant: this.blobs.get(keyOf(r.assistant_key)),
      observations: messagesJson(this.blobs, keyOf(r.observations_key)),
    }));
  }

  /** The system prompt and task of a rollout (what a viewer shows above the steps). */
  trajectoryHead(rolloutId: string): Pick<Trajectory, 'system' | 'task'> {
    const ref = this.sql('SELECT trajectory_ref FROM rollouts WHERE id = ?')
      .pluck()
      .get(rolloutId) as string | undefined;
    if (ref === undefined) throw new NotFoundError(`no rollout ${rolloutId}`);
    return trajectoryHead(this.blobs, ref);
  }

  /**
   * The agent steps of a rollout without their prompts: what the agent did and saw, which is all
   * a trajectory viewer shows. A prompt repeats the history, so reading it costs the square of
   * the trajectory's length.
   */
  stepActions(rolloutId: string): StepActionRow[] {
    const rows = this.sql(
      `SELECT idx, prompt_tokens, assistant_key, observations_key FROM steps
         WHERE rollout_id = ? ORDER BY idx`,
    ).all(rolloutId) as {
      idx: number;
      prompt_tokens: number;
      assistant_key: Buffer | string;
      observations_key: Buffer | string;
    }[];
    return rows.map((r) => ({
      idx: r.idx,
      prompt_tokens: r.prompt_tokens,
      assistant: this.blobs.get(keyOf(r.assistant_key)),
      observations: messagesJson(this.blobs, keyOf(r.observations_key)),
    }));
  }

  events(rolloutId: string): CompressionEvent[] {
    const rows = this.sql('SELECT * FROM compression_events WHERE rollout_id = ? ORDER BY seq').all(
      rolloutId,
    ) as Record<string, unknown>[];
    return rows.map((e) => ({
      kind: e.kind as CompressionEvent['kind'],
      step: e.step as number,
      inputTokens: e.input_tokens as number,
      outputTokens: e.output_tokens as number,
      input: this.blobs.get(keyOf(e.input_key)),
      output: this.blobs.get(keyOf(e.output_key)),
      guidelineId: (e.guideline_id as string | null) ?? null,
      callId: (e.call_id as number | null) ?? null,
      failed: e.failed === 1,
    }));
  }

  // ---- the distillation export's reads ----

  /** Task ids with candidate calls, sorted, each with whether a matching rollout succeeded. */
  exportTasks(f: RolloutFilter): { task: string; succeeded: boolean }[] {
    return this.exportQueries.tasks(f);
  }

  /** Candidate calls in the export's fixed order, one at a time (flat memory). */
  exportCalls(f: RolloutFilter): Generator<CallRow> {
    return this.exportQueries.calls(f);
  }

  // ---- storage ----

  /** How many distinct texts are stored, their bytes on disk and their bytes written out. */
  storageStats(): StorageStats {
    return this.sql(
      `SELECT COUNT(*) AS blobs, COALESCE(SUM(LENGTH(data)), 0) AS storedBytes,
           COALESCE(SUM(size), 0) AS textBytes FROM blobs`,
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

  setState(runId: string, key: string, value: unknown): void {
    this.sql('INSERT OR REPLACE INTO run_state (run_id, key, value) VALUES (?, ?, ?)').run(
      runId,
      key,
      JSON.stringify(value),
    );
  }

  // ---- guideline versions ----

  saveGuidelineVersion(v: GuidelineVersionRow): void {
    this.sql(
      `INSERT OR REPLACE INTO guideline_versions (id, kind, parent, phase, run_id, status, path,
           text, metrics, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      v.id,
      v.kind,
      v.parent,
      v.phase,
      v.runId,
      v.status,
      v.path,
      v.text,
      JSON.stringify(v.metrics),
      v.createdAt,
    );
  }
}

/** llm_calls with the run, rollout, task, role, provider and model of each (call_contexts). */
const CALLS = 'call_contexts x JOIN llm_calls c ON c.context = x.id';

/** Remembered call contexts at most (three or so a rollout are in use at a time). */
const MAX_REMEMBERED_CONTEXTS = 10_000;

/** A call's time as ISO text (stored as epoch ms; rows older than schema v7 may hold text). */
function isoTime(value: unknown): string {
  return typeof value === 'number' ? new Date(value).toISOString() : String(value);
}

function callWhere(f: CallFilter): { sql: string; params: string[] } {
  const columns = { 'x.run_id': f.runId, 'x.rollout_id': f.rolloutId, 'x.role': f.role };
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

import type { z } from 'zod';
import type {
  CallUsage,
  CompressionEvent,
  RolloutRow,
  RunRow,
  RunStatus,
  Trajectory,
} from '../domain/index.js';
import type { CallRecord, CallStore, ProviderResponse } from '../llm/index.js';
import { CallLog } from './call-log.js';
import type { StoredStep } from './document.js';
import type { CallRow, RolloutFilter } from './export-queries.js';
import { GuidelineVersionTable } from './guideline-versions.js';
import { currentOwner, HEARTBEAT_MS, processAlive, type OwnerProbe } from './ownership.js';
import type {
  CallFilter,
  ConditionCount,
  FinishedRollout,
  GuidelineVersionRow,
  LlmCallRow,
  NewRun,
  RoleUsageRow,
  StorageStats,
} from './records.js';
import { RolloutTable } from './rollout-table.js';
import { RunTable } from './run-table.js';
import type { OpenMode } from './open.js';
import { StoreDb } from './store-db.js';

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

/**
 * The SQLite store of runs (schema.ts), one table's concern a file: the call cache and log
 * (call-log.ts), runs and their owners (run-table.ts), rollouts and their documents
 * (rollout-table.ts), guideline versions (guideline-versions.ts), over one open file
 * (store-db.ts).
 */
export class SqliteRunStore implements RunStore {
  private readonly s: StoreDb;
  private readonly callLog: CallLog;
  private readonly runTable: RunTable;
  private readonly rolloutTable: RolloutTable;
  private readonly versions: GuidelineVersionTable;

  constructor(
    readonly path: string,
    opts: StoreOptions = {},
  ) {
    this.s = new StoreDb(path, opts.mode ?? 'write', opts.groupCommit ?? false);
    const probe: OwnerProbe = {
      self: opts.probe?.self ?? currentOwner(),
      now: opts.probe?.now ?? (() => Date.now()),
      pidAlive: opts.probe?.pidAlive ?? processAlive,
    };
    this.callLog = new CallLog(this.s);
    this.runTable = new RunTable(this.s, this.callLog, probe, opts.heartbeatMs ?? HEARTBEAT_MS);
    this.rolloutTable = new RolloutTable(this.s, this.callLog);
    this.versions = new GuidelineVersionTable(this.s);
  }

  close(): void {
    try {
      this.s.commitBatch();
    } finally {
      this.runTable.stopHeartbeats();
      this.s.close();
    }
  }

  // ---- call cache and call log (CallStore) ----

  getCached(requestHash: string): ProviderResponse | undefined {
    return this.callLog.getCached(requestHash);
  }
  putCached(requestHash: string, _provider: string, _model: string, response: ProviderResponse) {
    this.callLog.putCached(requestHash, response);
  }
  recordCall(call: CallRecord): number {
    return this.callLog.recordCall(call);
  }
  committed(): Promise<void> | undefined {
    return this.callLog.committed();
  }
  callsOfRollout(rolloutId: string): CallUsage[] {
    return this.callLog.callsOfRollout(rolloutId);
  }
  callStats(runId: string): { calls: number; cachedCalls: number; costUsd: number } {
    return this.callLog.callStats(runId);
  }
  calls(filter: CallFilter): LlmCallRow[] {
    return this.callLog.calls(filter);
  }

  // ---- runs ----

  createRun(run: NewRun): void {
    this.runTable.createRun(run);
  }
  claimRun(id: string): RunRow {
    return this.runTable.claimRun(id);
  }
  heartbeat(id: string): void {
    this.runTable.heartbeat(id);
  }
  getRun(id: string): RunRow {
    return this.runTable.getRun(id);
  }
  listRuns(kind?: string): RunRow[] {
    return this.runTable.listRuns(kind);
  }
  latestRunWithRollouts(): RunRow | null {
    return this.runTable.latestRunWithRollouts();
  }
  setRunStatus(id: string, status: RunStatus, summary?: unknown): void {
    this.runTable.setRunStatus(id, status, summary);
  }
  deleteRun(runId: string): { rollouts: number; calls: number } {
    return this.runTable.deleteRun(runId);
  }
  getState<T extends z.ZodType>(runId: string, key: string, schema: T): z.infer<T> | undefined {
    return this.runTable.getState(runId, key, schema);
  }
  setState(runId: string, key: string, value: unknown): void {
    this.runTable.setState(runId, key, value);
  }

  // ---- rollouts ----

  saveRollout(r: FinishedRollout): void {
    this.rolloutTable.saveRollout(r);
  }
  rollouts(runId: string, condition?: string): RolloutRow[] {
    return this.rolloutTable.rollouts(runId, condition);
  }
  rollout(idOrPrefix: string): RolloutRow {
    return this.rolloutTable.rollout(idOrPrefix);
  }
  conditionCounts(): ConditionCount[] {
    return this.rolloutTable.conditionCounts();
  }
  usageOutsideRollouts(runId: string): RoleUsageRow[] {
    return this.rolloutTable.usageOutsideRollouts(runId);
  }
  runConditions(runId: string): string[] {
    return this.rolloutTable.runConditions(runId);
  }
  finishedKeys(runId: string): Set<string> {
    return this.rolloutTable.finishedKeys(runId);
  }
  trajectory(rolloutId: string): Trajectory {
    return this.rolloutTable.trajectory(rolloutId);
  }
  trajectoryHead(rolloutId: string): Pick<Trajectory, 'system' | 'task'> {
    return this.rolloutTable.trajectoryHead(rolloutId);
  }
  prompts(rolloutId: string): unknown[][] {
    return this.rolloutTable.prompts(rolloutId);
  }
  stepRecords(rolloutId: string): StoredStep[] {
    return this.rolloutTable.stepRecords(rolloutId);
  }
  events(rolloutId: string): CompressionEvent[] {
    return this.rolloutTable.events(rolloutId);
  }
  exportTasks(f: RolloutFilter): { task: string; succeeded: boolean }[] {
    return this.rolloutTable.exportTasks(f);
  }
  exportCalls(f: RolloutFilter): Generator<CallRow> {
    return this.rolloutTable.exportCalls(f);
  }
  storageStats(): StorageStats {
    return this.rolloutTable.storageStats();
  }

  // ---- guideline versions ----

  learnedGuidelineIds(): string[] {
    return this.versions.learnedGuidelineIds();
  }
  guidelineVersions(runId: string): GuidelineVersionRow[] {
    return this.versions.guidelineVersions(runId);
  }
  saveGuidelineVersion(v: GuidelineVersionRow): void {
    this.versions.saveGuidelineVersion(v);
  }
}

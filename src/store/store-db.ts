import type Database from 'better-sqlite3';
import { NotFoundError } from '../errors.js';
import { redactUrlCredentials } from '../url-credentials.js';
import { CallBatch } from './call-batch.js';
import { openDatabase, type OpenMode } from './open.js';
import { reasoningColumn } from './schema.js';

/**
 * The open database file every table of the run store reads and writes through: prepared
 * statements by their SQL, the group commit of call rows, and the numbers of run and rollout
 * ids (rows reference runs and rollouts by number).
 */
export class StoreDb {
  readonly db: Database.Database;
  /** The open group commit of call rows (`groupCommit`). */
  readonly batch: CallBatch | undefined;
  /** Numbers of run and rollout ids (`run\0id`, `rollout\0id`). */
  private readonly numbers = new Map<string, number>();
  /** Prepared statements by their SQL: preparing costs more than running most of them. */
  private readonly statements = new Map<string, Database.Statement>();
  /** How queries read `calls.reasoning_tokens` (`c.reasoning_tokens`, or 0 in a schema-5 file read as it is). */
  readonly reasoning: string;

  constructor(
    readonly path: string,
    mode: OpenMode,
    groupCommit: boolean,
  ) {
    this.db = openDatabase(path, mode);
    this.reasoning = reasoningColumn(this.db);
    this.batch = groupCommit ? new CallBatch(this.db) : undefined;
  }

  sql(text: string): Database.Statement {
    let stmt = this.statements.get(text);
    if (!stmt) this.statements.set(text, (stmt = this.db.prepare(text)));
    return stmt;
  }

  all<T>(text: string, ...params: unknown[]): T[] {
    return this.sql(text).all(...params) as T[];
  }

  one<T>(text: string, ...params: unknown[]): T | undefined {
    return this.sql(text).get(...params) as T | undefined;
  }

  /** The first column of the first row. */
  value<T>(text: string, ...params: unknown[]): T | undefined {
    return this.sql(text)
      .pluck()
      .get(...params) as T | undefined;
  }

  /** Runs a statement; returns how many rows it changed. */
  run(text: string, ...params: unknown[]): number {
    return this.sql(text).run(...params).changes;
  }

  /**
   * Inserts a row given by its columns (`verb`: INSERT OR REPLACE…); returns its rowid. Every text
   * cell loses the credentials of the URLs in it first: a run's config holds base URLs, and an
   * error message names its endpoint (issue #60, case 4).
   */
  insert(table: string, row: Record<string, unknown>, verb = 'INSERT'): number {
    const clean = Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, typeof v === 'string' ? redactUrlCredentials(v) : v]),
    );
    return Number(this.sql(insertSql(table, clean, verb)).run(clean).lastInsertRowid);
  }

  /** Commits the open group of call rows, so a write of another table does not join it. */
  commitBatch(): void {
    this.batch?.commit();
  }

  /** The number of a run (`run`) or rollout id (`rollout`, given one at its first use). */
  number(kind: 'run' | 'rollout', id: string, run?: number): number | undefined {
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

  runNumber(runId: string): number {
    const n = this.number('run', runId);
    if (n === undefined) throw new NotFoundError(`no run ${runId} in ${this.path}`);
    return n;
  }

  /** Forgets the numbers of ids (after a run was deleted). */
  forgetNumbers(): void {
    this.numbers.clear();
  }

  close(): void {
    this.db.close();
  }
}

/** `INSERT INTO table (columns) VALUES (@columns)`: the row binds by column name. */
export function insertSql(table: string, row: Record<string, unknown>, verb = 'INSERT'): string {
  const columns = Object.keys(row);
  return `${verb} INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`;
}

/** Now, as the store writes times. */
export function now(): string {
  return new Date().toISOString();
}

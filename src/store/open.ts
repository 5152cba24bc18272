import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
} from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { DatabaseError } from '../errors.js';
import { createSchema, fileSchema, foreignFile, readableVersion } from './schema.js';

/** `write` creates the file and its tables; `read` never changes it (list, show, export). */
export type OpenMode = 'write' | 'read';

/** The options the fixes below name (the config's `run.db`, `resume`): the CLI shows its flags. */
const OPTIONS = ['run.db', 'resume'];
const ELSEWHERE = 'or use `run.db` (or ACON_DB) to point to another file';

/** How long a statement waits for another process's lock before it fails (ms). */
const BUSY_TIMEOUT_MS = 15_000;

/**
 * Opens an intact acon database of this schema (write mode: creating its tables); every failure
 * is a one-line DatabaseError naming the file and the fix. Reading a missing file gives an empty
 * in-memory database, so listing runs before the first run writes nothing.
 */
export function openDatabase(file: string, mode: OpenMode): Database.Database {
  const memory = file === ':memory:' || (mode === 'read' && !existsSync(file));
  if (!memory) lastOpened = file;
  let db: Database.Database | undefined;
  try {
    if (memory) {
      db = new Database(':memory:');
      createSchema(db, file);
      return db;
    }
    if (mode === 'write') mkdirSync(dirname(file), { recursive: true });
    checkHeader(file);
    db = mode === 'read' ? openForReading(file) : new Database(file, { timeout: BUSY_TIMEOUT_MS });
    const opened = db;
    // Before the switch to WAL rewrites the header: another program's database stays as it is.
    const schema = retryWhileBusy(() => fileSchema(opened));
    if (schema.foreign) throw foreignFile(file, schema.objects);
    if (mode === 'write') {
      // Only before writing: it reads every page (1.5 s on 1.4 GB), and reads report damage anyway.
      retryWhileBusy(() => checkIntegrity(opened, file));
      // Before the first table: a stopping run gives the journal's pages back.
      db.pragma('auto_vacuum = INCREMENTAL');
      // Busy without waiting when another process creates the same fresh file: retried.
      retryWhileBusy(() => opened.pragma('journal_mode = WAL'));
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      createSchema(db, file);
    } else if (readableVersion(db, file) === 0) {
      // An empty file: nothing stored yet, like a missing one.
      db.close();
      return openDatabase(':memory:', mode);
    }
    return db;
  } catch (err) {
    db?.close();
    throw asDatabaseError(err, file);
  }
}

/**
 * Opens an existing file changing nothing in it or beside it (issue #31). SQLite's read-only open
 * of a WAL file leaves a `-wal`/`-shm` behind, or fails on read-only media, so:
 * - with a `-wal` beside it (a writer runs, or died): read-only, through it;
 * - writable file and folder: read-write with `query_only` (the last close removes `-wal`/`-shm`);
 * - otherwise (read-only media, so no writer): a copy read into memory.
 */
export function openForReading(file: string, writable = canWrite(file)): Database.Database {
  const options = { fileMustExist: true, timeout: BUSY_TIMEOUT_MS };
  if (existsSync(`${file}-wal`)) {
    try {
      return new Database(file, { ...options, readonly: true });
    } catch (err) {
      if (writable) throw err;
      throw new DatabaseError(
        file,
        `its -wal file holds changes not yet in the database, and its folder is read-only (${(err as Error).message}); open it once where it is writable (any acon command), or copy the database with its -wal and -shm files to a writable folder`,
        { cause: err, options: OPTIONS },
      );
    }
  }
  if (writable) {
    const db = new Database(file, options);
    db.pragma('query_only = ON');
    return db;
  }
  const image = readFileSync(file);
  // Bytes 18–19 say WAL (2); an in-memory copy has no WAL, so it reads as a rollback-journal file.
  if (image[18] === 2) image.fill(1, 18, 20);
  return new Database(image, { readonly: true });
}

function canWrite(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    accessSync(dirname(file), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** SQLite silently reuses a short non-database file: a non-empty file needs SQLite's header. */
export function checkHeader(file: string): void {
  if (!existsSync(file)) return;
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(file, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (read > 0 && !header.subarray(0, read).equals(SQLITE_HEADER.subarray(0, read))) {
    throw new DatabaseError(file, notDatabase('it does not start with the SQLite header'), {
      options: OPTIONS,
    });
  }
  if (read > 0 && read < SQLITE_HEADER.length) {
    throw new DatabaseError(
      file,
      `truncated SQLite database (${read} bytes); restore it from a backup, ${ELSEWHERE}`,
      { options: OPTIONS },
    );
  }
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Runs `fn` again while SQLite reports a lock that its busy handler did not wait for. */
function retryWhileBusy<T>(fn: () => T): T {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; ; waited += 20) {
    try {
      return fn();
    } catch (err) {
      if (!codeOf(err).startsWith('SQLITE_BUSY') || waited >= BUSY_TIMEOUT_MS) throw err;
      // A synchronous pause: better-sqlite3 is synchronous, and this runs once at open.
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}

/** The database file this process opened last: SQLite's errors do not name their file. */
let lastOpened: string | null = null;

/** An SQLite error met after the open as a DatabaseError naming the file and the fix. */
export function explainDatabaseError(err: unknown): unknown {
  if (lastOpened === null || err instanceof DatabaseError) return err;
  if (!codeOf(err).startsWith('SQLITE_')) return err;
  return asDatabaseError(err, lastOpened);
}

/** PRAGMA quick_check: catches damaged pages before anything is written over them. */
function checkIntegrity(db: Database.Database, file: string): void {
  const rows = db.pragma('quick_check(1)') as { quick_check: string }[];
  const result = rows[0]?.quick_check ?? 'ok';
  if (result !== 'ok')
    throw new DatabaseError(file, damaged(result.split('\n')[0]!), { options: OPTIONS });
}

const notDatabase = (w: string) =>
  `not an SQLite database (${w}); restore it from a backup, ${ELSEWHERE}`;
const damaged = (w: string) =>
  `the database is damaged (${w}); restore it from a backup, ${ELSEWHERE}`;
const readOnly = (w: string) =>
  `cannot open it for writing (${w}); make the file and its folder writable, ${ELSEWHERE}`;

/** The fix of an SQLite error by its primary code, after what SQLite said (`what`). */
const FIXES: Record<string, (what: string, file: string) => string> = {
  SQLITE_NOTADB: notDatabase,
  SQLITE_CORRUPT: damaged,
  SQLITE_READONLY: readOnly,
  SQLITE_CANTOPEN: readOnly,
  SQLITE_PERM: readOnly,
  SQLITE_FULL: (w) =>
    `the disk is full (${w}); free space on it, then continue the stopped run with \`resume\` (\`acon runs\` lists it: everything finished is stored), ${ELSEWHERE}`,
  EISDIR: (_, file) =>
    `is a folder, not a database file; name a file, e.g. \`run.db\` ${file.replace(/\/+$/, '')}/acon.db`,
  SQLITE_BUSY: (w) =>
    `another process holds the database locked (${w}); wait for it to finish, ${ELSEWHERE}`,
};

export function asDatabaseError(err: unknown, file: string): unknown {
  if (err instanceof DatabaseError) return err;
  // better-sqlite3 reports extended codes (SQLITE_READONLY_DBMOVED, …): match the primary one.
  const fix = FIXES[codeOf(err).replace(/^(SQLITE_[A-Z]+?)_.*$/, '$1')];
  const what = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  return fix ? new DatabaseError(file, fix(what, file), { cause: err, options: OPTIONS }) : err;
}

/** An error's code: SQLite's (extended codes included) or the system's (EISDIR, …). */
function codeOf(err: unknown): string {
  return String((err as { code?: unknown } | null)?.code ?? '');
}

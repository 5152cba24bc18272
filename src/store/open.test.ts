import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DatabaseError } from '../errors.js';
import { APPLICATION_ID, createSchema, fileSchema, SCHEMA_VERSION } from './schema.js';
import { explainDatabaseError, openForReading } from './open.js';
import { storeWithRuns } from '../../test/helpers/store.js';
import { thrownOf } from '../../test/helpers/thrown.js';
import type { CallRecord } from '../llm/index.js';
import { SqliteRunStore } from './run-store.js';

const dir = () => mkdtempSync(join(tmpdir(), 'acon-store-'));

/** An analyzer call of run-0 that a reasoning model answered: 32 of its 40 output tokens reasoning. */
function analyzerCall(i: number): CallRecord {
  const usage = {
    promptTokens: 900,
    cachedPromptTokens: 0,
    completionTokens: 40,
    reasoningTokens: 32,
  };
  return {
    ctx: { role: 'analyzer', runId: 'run-0' },
    provider: 'openai',
    model: 'o3',
    requestHash: `analysis-${i}`,
    request: { messages: [{ role: 'user', content: `analyse ${i}` }], model: 'o3' },
    response: { message: { role: 'assistant', content: '{}' }, usage },
    usage,
    costUsd: 0.01,
    latencyMs: 3,
    cached: false,
    error: null,
  };
}

function openError(file: string, mode: 'read' | 'write' = 'write'): DatabaseError {
  return thrownOf(DatabaseError, () => new SqliteRunStore(file, { mode }).close());
}

describe('openDatabase', () => {
  it('refuses a file that is not a database, naming the file and the fix, and leaves it alone', () => {
    const file = join(dir(), 'acon.db');
    writeFileSync(file, 'x');
    const err = openError(file);
    expect(err.message).toBe(
      `${file}: not an SQLite database (it does not start with the SQLite header); restore it from a backup, or use \`run.db\` (or ACON_DB) to point to another file`,
    );
    expect(readFileSync(file, 'utf8')).toBe('x');
    expect(openError(file, 'read').message).toContain('not an SQLite database');
  });

  it('refuses an SQLite file of another program in every mode, naming it, and adds nothing to it', () => {
    const d = dir();
    const file = join(d, 'notes.db');
    const other = new Database(file);
    other.exec(
      "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine')",
    );
    other.close();
    const before = readFileSync(file);
    for (const mode of ['write', 'read'] as const) {
      expect(openError(file, mode).message).toBe(
        `${file}: is an SQLite database of another program (it holds table notes, not acon's); acon leaves it untouched: point \`run.db\` (or ACON_DB) to a new file or an acon database`,
      );
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(existsSync(`${file}-shm`)).toBe(false);
    // Another program's application id is refused too, even with no table yet.
    const tagged = join(d, 'tagged.db');
    const t = new Database(tagged);
    t.pragma('application_id = 1234');
    t.close();
    expect(openError(tagged).message).toContain('of another program');
  });

  it('refuses a file holding only a view of another program, naming it (issue #60)', () => {
    const d = dir();
    const cases = {
      view: 'CREATE VIEW v AS SELECT 1',
      // A table SQLite keeps for itself does not make the file acon's, nor hide the view.
      viewAndSequence:
        'CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT); CREATE VIEW v AS SELECT 1',
    };
    for (const [name, sql] of Object.entries(cases)) {
      const file = join(d, `${name}.db`);
      const other = new Database(file);
      other.exec(sql);
      other.close();
      const before = readFileSync(file);
      const message = openError(file).message;
      expect(message).toContain('of another program');
      expect(message).toContain('view v');
      expect(message).not.toContain('sqlite_sequence');
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(existsSync(`${file}-wal`)).toBe(false);
    }
  });

  it('says a folder given as the database is a folder, and how to name a file in it', () => {
    const folder = dir();
    for (const mode of ['write', 'read'] as const) {
      expect(openError(folder, mode).message).toBe(
        `${folder}: is a folder, not a database file; name a file, e.g. \`run.db\` ${folder}/acon.db`,
      );
    }
  });

  it('names the file, the fix and --resume when the disk fills up mid-run', () => {
    const file = join(dir(), 'acon.db');
    new SqliteRunStore(file).close();
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const err = explainDatabaseError(full);
    expect(err).toBeInstanceOf(DatabaseError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^${file}: the disk is full \\(database or disk is full\\); free space on it, then continue the stopped run with \`resume\``,
      ),
    );
  });

  it('refuses a database damaged in the middle before writing to it', () => {
    const file = join(dir(), 'acon.db');
    storeWithRuns(file, 200);
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    // Garbage over a b-tree page in the middle of the file (not the header page).
    const page = Math.floor(bytes.length / pageSize / 2);
    bytes.fill(0x5a, page * pageSize, page * pageSize + pageSize);
    writeFileSync(file, bytes);
    const err = openError(file);
    expect(err.message).toMatch(
      new RegExp(
        `^${file}: the database is damaged \\(.+\\); restore it from a backup, or use \`run.db\``,
      ),
    );
    expect(err.message).not.toContain('\n');
    expect(readFileSync(file).equals(bytes)).toBe(true);
    // Read-only opens skip the whole-file check (it reads every page of a large store).
    expect(() => new SqliteRunStore(file, { mode: 'read' }).close()).not.toThrow();
    expect(readFileSync(file).equals(bytes)).toBe(true);
    // Reading the damaged page later gives the same one-line error naming the file and the fix.
    const reader = new SqliteRunStore(file, { mode: 'read' });
    let thrown: unknown;
    try {
      reader.listRuns();
    } catch (err) {
      thrown = err;
    } finally {
      reader.close();
    }
    expect(thrown).toBeDefined();
    const explained = explainDatabaseError(thrown);
    expect(explained).toBeInstanceOf(DatabaseError);
    expect((explained as DatabaseError).message).toMatch(
      new RegExp(`^${file}: the database is damaged \\(.+\\); restore it from a backup`),
    );
  });

  it('reads a fresh file in one snapshot while another process creates its tables', () => {
    // CI once saw a process call a fresh file "another program's database": it read the version
    // before a second process created the tables, and counted the tables after.
    const file = join(dir(), 'acon.db');
    const db = new Database(file);
    const other = new Database(file);
    let interleaved = false;
    const racing = new Proxy(db, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!interleaved) {
            interleaved = true;
            createSchema(other, file);
          }
          return result;
        };
      },
    });
    const seen = fileSchema(racing);
    expect(interleaved).toBe(true);
    // Either snapshot is right: before the other process (empty) or after it (this schema).
    expect([
      { legacy: false, version: 0, foreign: false },
      { legacy: false, version: SCHEMA_VERSION, foreign: false },
    ]).toContainEqual({ legacy: seen.legacy, version: seen.version, foreign: seen.foreign });
    db.close();
    other.close();
  });

  it('refuses a schema newer than this acon', () => {
    const file = join(dir(), 'acon.db');
    const db = new Database(file);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(openError(file).message).toContain(
      `schema version ${SCHEMA_VERSION + 1} is newer than this acon (${SCHEMA_VERSION}); upgrade acon`,
    );
  });

  it.each([1, 2, 5])(
    'reads a schema-%i file as it is and moves it to the current schema when opened for writing',
    (old) => {
      const file = join(dir(), 'acon.db');
      storeWithRuns(file, 1);
      const recorded = new SqliteRunStore(file);
      recorded.recordCall(analyzerCall(0));
      recorded.close();
      const version = () => {
        const db = new Database(file, { readonly: true });
        const v = db.pragma('user_version', { simple: true });
        const columns = db.prepare("SELECT name FROM pragma_table_info('calls')").pluck().all();
        db.close();
        return { v, reasoningColumn: columns.includes('reasoning_tokens') };
      };
      // Schemas 1-5 had no calls.reasoning_tokens: the file is made as those acons left it.
      const db = new Database(file);
      db.exec('ALTER TABLE calls DROP COLUMN reasoning_tokens');
      db.pragma(`user_version = ${old}`);
      db.close();
      const reader = new SqliteRunStore(file, { mode: 'read' });
      expect(reader.listRuns().map((r) => r.id)).toEqual(['run-0']);
      expect(reader.usageOutsideRollouts('run-0')).toMatchObject([
        { role: 'analyzer', outputTokens: 40, reasoningTokens: 0 },
      ]);
      reader.close();
      expect(version()).toEqual({ v: old, reasoningColumn: false });
      const writer = new SqliteRunStore(file);
      writer.recordCall(analyzerCall(1));
      expect(writer.usageOutsideRollouts('run-0')).toMatchObject([
        { role: 'analyzer', calls: 2, outputTokens: 80, reasoningTokens: 32 },
      ]);
      writer.close();
      expect(version()).toEqual({ v: SCHEMA_VERSION, reasoningColumn: true });
      expect(SCHEMA_VERSION).toBe(6);
    },
  );

  it('opens read-only without creating or changing the file', () => {
    const d = dir();
    const missing = join(d, 'runs', 'acon.db');
    const empty = new SqliteRunStore(missing, { mode: 'read' });
    expect(empty.listRuns()).toEqual([]);
    empty.close();
    expect(existsSync(join(d, 'runs'))).toBe(false);

    const file = join(d, 'acon.db');
    storeWithRuns(file, 2);
    const before = statSync(file).mtimeMs;
    const store = new SqliteRunStore(file, { mode: 'read' });
    expect(store.listRuns().map((r) => r.id)).toEqual(['run-1', 'run-0']);
    expect(() => store.setRunStatus('run-0', 'failed')).toThrow(/readonly/);
    store.close();
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it('leaves no -wal or -shm beside a database it only read, in either way of reading', () => {
    const d = dir();
    const file = join(d, 'acon.db');
    storeWithRuns(file, 2);
    const bytes = readFileSync(file);
    expect(readdirSync(d)).toEqual(['acon.db']);
    // The store's read mode (a writable folder), then the in-memory copy read-only media get.
    const store = new SqliteRunStore(file, { mode: 'read' });
    expect(store.listRuns()).toHaveLength(2);
    store.close();
    expect(readdirSync(d)).toEqual(['acon.db']);
    const copy = openForReading(file, false);
    expect(copy.readonly).toBe(true);
    expect(copy.prepare('SELECT COUNT(*) FROM runs').pluck().get()).toBe(2);
    copy.close();
    expect(readdirSync(d)).toEqual(['acon.db']);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  // As root, chmod does not stop writes; the test above covers the read-only way for root.
  it.skipIf(process.getuid?.() === 0)('reads a database in a read-only folder', () => {
    const d = dir();
    const file = join(d, 'acon.db');
    storeWithRuns(file, 2);
    chmodSync(file, 0o444);
    chmodSync(d, 0o555);
    try {
      const store = new SqliteRunStore(file, { mode: 'read' });
      expect(store.listRuns()).toHaveLength(2);
      store.close();
      expect(readdirSync(d)).toEqual(['acon.db']);
    } finally {
      chmodSync(d, 0o755);
    }
  });
});

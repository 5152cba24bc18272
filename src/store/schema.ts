import type Database from 'better-sqlite3';
import { DatabaseError } from '../errors.js';

/**
 * The store's tables (store v2, issue #30): one brotli-compressed document per rollout, small
 * rows for what commands query. Read it with `sqlite3 runs/acon.db .schema`.
 *
 * A file of this store carries APPLICATION_ID; PRAGMA user_version counts its schema from 1.
 * Files of the acon before it (one row per step, content-addressed blobs) have application_id 0
 * and user_version 1–12: `acon runs upgrade` converts schema 12 (src/store-upgrade/).
 */
const SCHEMA = `
CREATE TABLE runs (
  n INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,              -- run | compare | optimize | export
  command TEXT NOT NULL,           -- the command line, for the record
  bench TEXT NOT NULL,
  provider TEXT NOT NULL,          -- sim | openai (several roles: the agent's)
  models TEXT NOT NULL,            -- JSON {role: "provider/model"}
  simulated INTEGER NOT NULL,
  params TEXT NOT NULL,            -- JSON: what --resume needs to continue the run
  config TEXT NOT NULL,            -- JSON: the effective config (holds no keys)
  status TEXT NOT NULL,            -- running | finished | failed | interrupted | budget
  summary TEXT,                    -- JSON: the result table's numbers
  created_at TEXT NOT NULL,
  finished_at TEXT,
  owner_pid INTEGER,
  owner_host TEXT,
  heartbeat_at INTEGER
);
-- One brotli-compressed document (src/store/document.ts): a finished rollout's, or the calls
-- of a run made outside rollouts (analyzer, updater) and of rollouts that never finished.
CREATE TABLE docs (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  run INTEGER NOT NULL REFERENCES runs(n),
  size INTEGER NOT NULL,           -- bytes of the document before compression
  data BLOB NOT NULL
);
-- The number of every rollout id, given at its first call (calls refer to rollouts by it).
CREATE TABLE rollout_ids (
  n INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  run INTEGER NOT NULL REFERENCES runs(n)
);
-- Finished rollouts only, in the order they were saved.
CREATE TABLE rollouts (
  n INTEGER NOT NULL UNIQUE REFERENCES rollout_ids(n),
  id TEXT NOT NULL UNIQUE,
  run_id TEXT NOT NULL REFERENCES runs(id),
  condition TEXT NOT NULL,         -- strategy plus guideline versions, e.g. acon[obs-0002,hist-0000]
  task_id TEXT NOT NULL,
  split TEXT NOT NULL,
  strategy TEXT NOT NULL,
  guideline_obs TEXT,
  guideline_hist TEXT,
  status TEXT NOT NULL,            -- completed | max_steps | error
  success INTEGER NOT NULL,
  score REAL NOT NULL,
  steps INTEGER NOT NULL,
  peak_input_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  metrics TEXT NOT NULL,           -- JSON RolloutMetrics
  evaluation BLOB NOT NULL,        -- JSON Evaluation, brotli-compressed (schema 1-4: as text)
  error TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  episode_meta TEXT,               -- JSON: what the benchmark records beside the trajectory
  doc INTEGER NOT NULL REFERENCES docs(n),
  UNIQUE (run_id, condition, task_id)
);
-- Every LLM call, without payloads: its request and response are in its document (doc), or in
-- the journal while doc is NULL.
CREATE TABLE calls (
  id INTEGER PRIMARY KEY,
  run INTEGER NOT NULL REFERENCES runs(n),
  rollout INTEGER REFERENCES rollout_ids(n),
  doc INTEGER REFERENCES docs(n),
  step INTEGER,
  role TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  request_hash BLOB NOT NULL,      -- the first 16 bytes of the call-cache key
  prompt_tokens INTEGER NOT NULL,
  cached_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  latency_ms REAL NOT NULL,
  cached INTEGER NOT NULL,
  error TEXT,
  -- Of completion_tokens, a reasoning model's reasoning tokens (schema 6; 0 where unreported)
  reasoning_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX calls_run ON calls(run, role);
CREATE INDEX calls_rollout ON calls(rollout);
-- The payload of a call whose rollout (or run stage) has not written its document yet, one
-- JSON row a call holding what is new since the rollout's previous call (src/store/journal.ts):
-- a killed run keeps every call it finished.
CREATE TABLE journal (
  call INTEGER PRIMARY KEY REFERENCES calls(id),
  data BLOB NOT NULL
);
-- The call cache: the call whose response answers a request (src/llm/request-hash.ts).
CREATE TABLE llm_cache (
  request_hash BLOB PRIMARY KEY,   -- 16 bytes, as in calls
  call INTEGER NOT NULL REFERENCES calls(id)
) WITHOUT ROWID;
CREATE INDEX llm_cache_call ON llm_cache(call);
CREATE TABLE guideline_versions (
  id TEXT PRIMARY KEY,             -- e.g. obs-0003
  kind TEXT NOT NULL,              -- obs | hist
  parent TEXT,
  phase TEXT NOT NULL,             -- seed | ut | co | manual
  run_id TEXT,
  status TEXT NOT NULL,            -- seed | accepted | rejected
  path TEXT NOT NULL,
  text TEXT NOT NULL,
  metrics TEXT NOT NULL,           -- JSON
  created_at TEXT NOT NULL
);
-- Checkpoints of multi-stage runs (optimize), JSON by key.
CREATE TABLE run_state (
  run_id TEXT NOT NULL REFERENCES runs(id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
);
`;

/** PRAGMA application_id of a store v2 file: "acon" in ASCII. */
export const APPLICATION_ID = 0x61636f6e;

/**
 * 2: named sections, each message written once (document.ts). 3: messages by index everywhere;
 * journal rows hold only what is new (journal.ts). 4: `requestValues` apart from the steps'.
 * 5: rollout rows' evaluations brotli-compressed. 6: `calls.reasoning_tokens` (issue #54). The
 * tables of 1–5 are schema 1's and stay readable as they are (a reader counts their reasoning
 * tokens as 0, `reasoningColumn`); writing to such a file adds the column and sets its version
 * (an older acon could not read what follows).
 */
export const SCHEMA_VERSION = 6;

/** The first schema with `calls.reasoning_tokens`. */
const REASONING_COLUMN_SINCE = 6;

/**
 * The SQL a query reads a call's reasoning tokens with: the column, or 0 in a file of schema 1–5
 * opened for reading (which must not be changed, so it cannot get the column).
 */
export function reasoningColumn(db: Database.Database): string {
  const has = db
    .prepare("SELECT 1 FROM pragma_table_info('calls') WHERE name = 'reasoning_tokens'")
    .get();
  return has === undefined ? '0' : 'c.reasoning_tokens';
}

/**
 * What a file holds: this store's schema, the store before it (legacy), nothing yet, or another
 * program's data (foreign: another application id, or objects of any kind (tables, views,
 * triggers, indexes) in a file without an acon schema version; `objects` names them).
 */
type FileSchema = { legacy: boolean; version: number; foreign: boolean; objects: string[] };

export function fileSchema(db: Database.Database): FileSchema {
  // One statement, one snapshot: a process creating the tables between reads looked foreign.
  const { app, version, objects } = db.prepare(HEADER_QUERY).get() as {
    app: number;
    version: number;
    objects: string | null;
  };
  const names = objects === null ? [] : objects.split('\n');
  const foreign =
    (app !== APPLICATION_ID && app !== 0) || (app === 0 && version === 0 && names.length > 0);
  return { legacy: app === 0 && version > 0, version, foreign, objects: names };
}

// SQLite's own objects (sqlite_sequence, sqlite_stat1, sqlite_autoindex_…) come with any table.
const HEADER_QUERY = `SELECT (SELECT application_id FROM pragma_application_id) AS app,
  (SELECT user_version FROM pragma_user_version) AS version,
  (SELECT group_concat(type || ' ' || name, char(10)) FROM sqlite_master
    WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\') AS objects`;

/** An SQLite file of another program: acon neither reads nor adds its tables to it (issue #31). */
export function foreignFile(file: string, objects: readonly string[] = []): DatabaseError {
  const shown =
    objects.slice(0, 5).join(', ') + (objects.length > 5 ? `, … (${objects.length})` : '');
  const what =
    objects.length > 0 ? `it holds ${shown}, not acon's` : "it is marked as another program's";
  return new DatabaseError(
    file,
    `is an SQLite database of another program (${what}); acon leaves it untouched: point \`run.db\` (or ACON_DB) to a new file or an acon database`,
    { options: ['run.db'] },
  );
}

/** The file's schema version (0: empty); refuses a file of another program or acon. */
export function readableVersion(db: Database.Database, file: string): number {
  const s = fileSchema(db);
  if (s.foreign) throw foreignFile(file, s.objects);
  if (s.legacy) throw legacySchema(file, s.version);
  if (s.version > SCHEMA_VERSION) throw newerSchema(file, s.version);
  return s.version;
}

/** Creates the tables of an empty file, exactly once even when two processes race. */
export function createSchema(db: Database.Database, file: string): void {
  if (readableVersion(db, file) === SCHEMA_VERSION) return;
  db.transaction(() => {
    const version = readableVersion(db, file);
    if (version === SCHEMA_VERSION) return;
    if (version === 0) db.exec(SCHEMA);
    else if (version < REASONING_COLUMN_SINCE) {
      // Rows written before it get 0: those acons did not read the provider's reasoning tokens.
      db.exec('ALTER TABLE calls ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0');
    }
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).exclusive();
}

function newerSchema(file: string, version: number): DatabaseError {
  return new DatabaseError(
    file,
    `schema version ${version} is newer than this acon (${SCHEMA_VERSION}); upgrade acon or use \`run.db\` with another file`,
    { options: ['run.db'] },
  );
}

/** The acon this store replaced wrote schema 12 last (commit e8cc1f0). */
export const LEGACY_VERSION = 12;

export function legacySchema(file: string, version: number): DatabaseError {
  const fix =
    version === LEGACY_VERSION
      ? `convert it with \`acon runs upgrade --db ${file}\``
      : `bring it to schema ${LEGACY_VERSION} first with the acon of commit e8cc1f0 (\`acon runs upgrade --db ${file}\` there), then run \`acon runs upgrade --db ${file}\` with this acon`;
  return new DatabaseError(
    file,
    `written by an older acon (store schema ${version}, one row per step); ${fix}, or use \`run.db\` (or ACON_DB) to point to another file`,
    { options: ['run.db'] },
  );
}

import type Database from 'better-sqlite3';
import { DatabaseError } from '../errors.js';
import { convertToBlobs } from './migrate-blobs.js';
import { compactRows, contextRequests } from './migrate-rows.js';

/** Plain SQL, or a step that also has to rewrite rows (hashing, compressing) in JavaScript. */
type Migration = string | ((db: Database.Database) => void);

/**
 * Versioned schema migrations, applied in order; PRAGMA user_version holds the applied count.
 * Never edit a shipped migration: add a new one.
 */
const MIGRATIONS: Migration[] = [
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
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
    finished_at TEXT
  );
  CREATE TABLE rollouts (
    id TEXT PRIMARY KEY,
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
    metrics TEXT NOT NULL,           -- JSON RolloutMetrics (src/report/metrics.ts)
    evaluation TEXT NOT NULL,        -- JSON Evaluation
    trajectory TEXT NOT NULL,        -- JSON Trajectory (full, uncompressed)
    error TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    UNIQUE (run_id, condition, task_id)
  );
  CREATE TABLE steps (
    rollout_id TEXT NOT NULL REFERENCES rollouts(id),
    idx INTEGER NOT NULL,
    prompt TEXT NOT NULL,            -- JSON messages actually sent to the agent
    prompt_tokens INTEGER NOT NULL,
    assistant TEXT NOT NULL,         -- JSON assistant message
    observations TEXT NOT NULL,      -- JSON observation messages
    observation_tokens INTEGER NOT NULL,
    call_id INTEGER,
    latency_ms REAL NOT NULL,
    PRIMARY KEY (rollout_id, idx)
  );
  CREATE TABLE compression_events (
    id INTEGER PRIMARY KEY,
    rollout_id TEXT NOT NULL REFERENCES rollouts(id),
    step INTEGER NOT NULL,
    kind TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    input TEXT NOT NULL,
    output TEXT NOT NULL,
    guideline_id TEXT,
    call_id INTEGER,
    failed INTEGER NOT NULL
  );
  CREATE TABLE llm_calls (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    rollout_id TEXT,
    task_id TEXT,
    step INTEGER,
    role TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT,
    prompt_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    latency_ms REAL NOT NULL,
    cached INTEGER NOT NULL,
    error TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX llm_calls_run ON llm_calls(run_id);
  CREATE INDEX llm_calls_rollout ON llm_calls(rollout_id);
  CREATE TABLE llm_cache (
    request_hash TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
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
  `,
  `
  -- Checkpoints of multi-stage runs (optimize): analyses, generated candidates and selection
  -- results, so --resume continues a stage instead of regenerating it.
  CREATE TABLE run_state (
    run_id TEXT NOT NULL REFERENCES runs(id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
  );
  `,
  `
  -- Run ownership (issue #17): the process working on a run, and when it last said so. A run
  -- whose owner is gone shows as interrupted; a live owner keeps a second --resume out.
  ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
  ALTER TABLE runs ADD COLUMN owner_host TEXT;
  ALTER TABLE runs ADD COLUMN heartbeat_at INTEGER;  -- epoch ms of the owner's clock
  `,
  // Content-addressed storage (issue #16): every message, observation, compressor input and
  // output, tool list and system prompt is stored once in `blobs`; rows hold keys.
  convertToBlobs,
  `
  -- What the benchmark records about a rollout beside its trajectory (JSON object), e.g.
  -- AppWorld's experiment name and the steps whose execution timed out.
  ALTER TABLE rollouts ADD COLUMN episode_meta TEXT;
  `,
  `
  -- Blobs may now be deltas of similar texts (encoding 3) or JSON with long strings apart
  -- (encoding 4). An older acon cannot read them, and its blob sweep (runs rm) would delete the
  -- texts they are built on: the version moves on so that it refuses the file.
  SELECT 1;
  `,
  // Smaller rows (issue #16): call contexts by integer, keys as bytes (src/store/migrate-rows.ts).
  compactRows,
  // A call's request settings in its context, a rollout's evaluation as a blob (migrate-rows.ts).
  contextRequests,
  `
  -- The blobs table's own keys as 16-byte BLOBs instead of 32 hex characters (the table and its
  -- key index shrink by a tenth), and blobs that copy from several texts (encoding 5,
  -- src/store/blobs.ts), which an older acon could neither read nor keep in its sweep. Keys
  -- already bytes stay as they are.
  CREATE TABLE blobs_v9 (
    key BLOB PRIMARY KEY NOT NULL, -- first 128 bits of the SHA-256 of the text
    encoding INTEGER NOT NULL,     -- src/store/blobs.ts ENCODING
    size INTEGER NOT NULL,         -- UTF-8 bytes of the text
    data BLOB NOT NULL
  );
  INSERT INTO blobs_v9 (key, encoding, size, data)
    SELECT CASE typeof(key) WHEN 'text' THEN unhex(key) ELSE key END, encoding, size, data
    FROM blobs ORDER BY rowid;
  DROP TABLE blobs;
  ALTER TABLE blobs_v9 RENAME TO blobs;
  `,
  `
  -- Leaner steps and compression events (issue #16). A step's prompt is NULL when it is the
  -- message list of the step's agent call (llm_calls.messages_key), as it almost always is.
  -- Compression events are keyed by (rollout, position) without a rowid and a second index;
  -- only failed ones are indexed by call (what the distillation export asks).
  CREATE TABLE steps_v10 (
    rollout_id TEXT NOT NULL REFERENCES rollouts(id),
    idx INTEGER NOT NULL,
    prompt_key BLOB,               -- NULL: the agent call's message list
    prompt_tokens INTEGER NOT NULL,
    assistant_key BLOB NOT NULL,
    observations_key BLOB NOT NULL,
    observation_tokens INTEGER NOT NULL,
    call_id INTEGER,
    latency_ms REAL NOT NULL,
    PRIMARY KEY (rollout_id, idx)
  ) WITHOUT ROWID;
  INSERT INTO steps_v10 SELECT s.rollout_id, s.idx,
      CASE WHEN s.prompt_key = c.messages_key THEN NULL ELSE s.prompt_key END, s.prompt_tokens,
      s.assistant_key, s.observations_key, s.observation_tokens, s.call_id, s.latency_ms
    FROM steps s LEFT JOIN llm_calls c ON c.id = s.call_id;
  DROP TABLE steps;
  ALTER TABLE steps_v10 RENAME TO steps;

  CREATE TABLE events_v10 (
    rollout_id TEXT NOT NULL REFERENCES rollouts(id),
    seq INTEGER NOT NULL,          -- order within the rollout
    step INTEGER NOT NULL,
    kind TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    input_key BLOB NOT NULL,
    output_key BLOB NOT NULL,
    guideline_id TEXT,
    call_id INTEGER,
    failed INTEGER NOT NULL,
    PRIMARY KEY (rollout_id, seq)
  ) WITHOUT ROWID;
  INSERT INTO events_v10 SELECT rollout_id, id, step, kind, input_tokens, output_tokens,
      input_key, output_key, guideline_id, call_id, failed
    FROM compression_events;
  DROP TABLE compression_events;
  ALTER TABLE events_v10 RENAME TO compression_events;
  CREATE INDEX compression_events_failed_call ON compression_events(call_id) WHERE failed = 1;
  `,
  `
  -- Blobs may now be lists of keys as bytes (encodings 6 and 7), skeletons and short texts
  -- deflated with a preset dictionary (8 and 9) and deltas with their edits as bytes (10).
  -- An acon of schema 10 or older cannot read them: the version moves on so that it refuses
  -- the file.
  SELECT 1;
  `,
  `
  -- Short texts may now name a dictionary text they were deflated with (encoding 11); an acon
  -- of schema 11 could not read them, and its sweep would delete the dictionaries.
  SELECT 1;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The schema version a database file holds (PRAGMA user_version). */
export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the schema up to date. The version is read again inside an exclusive transaction, so
 * two processes opening a fresh database at once apply each migration exactly once: the second
 * waits for the first (busy timeout) and then finds nothing left to do.
 */
export function migrate(db: Database.Database, file: string): void {
  if (schemaVersion(db) === MIGRATIONS.length) return;
  db.transaction(() => {
    const current = schemaVersion(db);
    if (current > MIGRATIONS.length) throw newerSchema(file, current);
    for (let v = current; v < MIGRATIONS.length; v++) {
      const step = MIGRATIONS[v]!;
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).exclusive();
}

export function newerSchema(file: string, version: number): DatabaseError {
  return new DatabaseError(
    file,
    `schema version ${version} is newer than this acon (${MIGRATIONS.length}); upgrade acon or use --db with another file`,
  );
}

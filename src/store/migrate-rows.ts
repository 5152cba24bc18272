import type Database from 'better-sqlite3';
import { z } from 'zod';
import { BlobStore } from './blobs.js';
import { checked, compactTurns, keyColumn, keyOf, responseRest } from './codec.js';

/**
 * Schema v7 (issue #16): smaller rows. With texts stored as deltas, the rows had become most of
 * a database (about 1.8 KB an agent step on the long apptown tasks):
 * - an LLM call names its run, rollout, task, role, provider and model through one integer,
 *   `call_contexts.id`, instead of repeating them (and indexing them) in every row;
 * - blob keys and the request hash are stored as bytes, not hex;
 * - a call's request and response keep only their keys; the usage is not repeated in JSON;
 * - a call's time is epoch milliseconds;
 * - steps are keyed by (rollout, step) without a second index;
 * - a trajectory writes 0 for a turn that repeats the agent step at its position.
 * Every row is rewritten in place in this transaction; readers see the same values as before.
 */
export function compactRows(db: Database.Database): void {
  db.exec(`
    CREATE TABLE call_contexts (
      id INTEGER PRIMARY KEY,
      run_id TEXT NOT NULL,
      rollout_id TEXT,
      task_id TEXT,
      role TEXT NOT NULL,
      provider TEXT NOT NULL,
      model TEXT NOT NULL
    );
    CREATE INDEX call_contexts_run ON call_contexts(run_id);
    CREATE INDEX call_contexts_rollout ON call_contexts(rollout_id);
    INSERT INTO call_contexts (run_id, rollout_id, task_id, role, provider, model)
      SELECT run_id, rollout_id, task_id, role, provider, model FROM llm_calls
      GROUP BY run_id, rollout_id, task_id, role, provider, model ORDER BY MIN(id);
    CREATE TABLE calls_v7 (
      id INTEGER PRIMARY KEY,
      context INTEGER NOT NULL REFERENCES call_contexts(id),
      step INTEGER,
      request_hash BLOB NOT NULL,    -- SHA-256 of the request (the call cache's key), 32 bytes
      messages_key BLOB NOT NULL,    -- the request's message list (blob key, 16 bytes)
      request_key BLOB NOT NULL,     -- the rest of the request: JSON blob, messages null in place
      response_key BLOB,             -- the response's message; NULL when the call failed
      response_rest TEXT,            -- the response's JSON when it is more than {message, usage}
      prompt_tokens INTEGER NOT NULL,
      cached_tokens INTEGER NOT NULL,
      completion_tokens INTEGER NOT NULL,
      cost_usd REAL NOT NULL,
      latency_ms REAL NOT NULL,
      cached INTEGER NOT NULL,
      error TEXT,
      created_at INTEGER NOT NULL    -- epoch ms
    );
  `);
  const blobs = new BlobStore(db);
  convertCalls(db, blobs);
  db.exec(`
    DROP TABLE llm_calls;
    ALTER TABLE calls_v7 RENAME TO llm_calls;
    CREATE INDEX llm_calls_context ON llm_calls(context);

    CREATE TABLE steps_v7 (
      rollout_id TEXT NOT NULL REFERENCES rollouts(id),
      idx INTEGER NOT NULL,
      prompt_key BLOB NOT NULL,
      prompt_tokens INTEGER NOT NULL,
      assistant_key BLOB NOT NULL,
      observations_key BLOB NOT NULL,
      observation_tokens INTEGER NOT NULL,
      call_id INTEGER,
      latency_ms REAL NOT NULL,
      PRIMARY KEY (rollout_id, idx)
    ) WITHOUT ROWID;
    INSERT INTO steps_v7 SELECT rollout_id, idx, ${unhex('prompt_key')}, prompt_tokens,
        ${unhex('assistant_key')}, ${unhex('observations_key')}, observation_tokens, call_id,
        latency_ms
      FROM steps;
    DROP TABLE steps;
    ALTER TABLE steps_v7 RENAME TO steps;

    UPDATE compression_events SET input_key = ${unhex('input_key')},
      output_key = ${unhex('output_key')};
  `);
  compactTrajectories(db);
}

/** A hex key column as its bytes; anything that is not 32 hex digits stays as it is. */
function unhex(column: string): string {
  return `CASE WHEN length(${column}) = 32 THEN COALESCE(unhex(${column}), ${column}) ELSE ${column} END`;
}

const OldRequestSchema = z.looseObject({ messages: z.string() });
const OldResponseSchema = z.looseObject({ message: z.string() });

function convertCalls(db: Database.Database, blobs: BlobStore): void {
  const contexts = new Map<string, number>();
  for (const c of db.prepare('SELECT * FROM call_contexts').iterate()) {
    const row = c as Record<string, unknown>;
    contexts.set(contextKey(row), row.id as number);
  }
  const insert = db.prepare(
    `INSERT INTO calls_v7 (id, context, step, request_hash, messages_key, request_key,
       response_key, response_rest, prompt_tokens, cached_tokens, completion_tokens, cost_usd,
       latency_ms, cached, error, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // In batches: a statement cannot write (blobs) while another one is still reading.
  const batch = db.prepare('SELECT * FROM llm_calls WHERE id > ? ORDER BY id LIMIT 500');
  for (let after = -Infinity; ;) {
    const rows = batch.all(after) as CallRow[];
    if (rows.length === 0) return;
    for (const c of rows) convertCall(c);
    after = rows[rows.length - 1]!.id;
  }

  function convertCall(c: CallRow): void {
    // The old request JSON held the message list's key in place of the messages.
    const oldRequest = checked(OldRequestSchema, JSON.parse(c.request_ref as string));
    const rest = blobs.put(JSON.stringify({ ...oldRequest, messages: null }));
    let response: { message: string; rest: string | null } | null = null;
    if (c.response_ref !== null) {
      const old = checked(OldResponseSchema, JSON.parse(c.response_ref as string));
      response = { message: old.message, rest: responseRest(old, c) };
    }
    insert.run(
      c.id,
      contexts.get(contextKey(c)),
      c.step,
      keyColumn(c.request_hash as string),
      keyColumn(oldRequest.messages),
      keyColumn(rest),
      response === null ? null : keyColumn(response.message),
      response?.rest ?? null,
      c.prompt_tokens,
      c.cached_tokens,
      c.completion_tokens,
      c.cost_usd,
      c.latency_ms,
      c.cached,
      c.error,
      epochMs(c.created_at as string),
    );
  }
}

type CallRow = Record<string, unknown> & {
  id: number;
  prompt_tokens: number;
  cached_tokens: number;
  completion_tokens: number;
};

function contextKey(row: Record<string, unknown>): string {
  return JSON.stringify([
    row.run_id,
    row.rollout_id,
    row.task_id,
    row.role,
    row.provider,
    row.model,
  ]);
}

/** An ISO time as epoch ms when that reads back as the same text; otherwise the text. */
function epochMs(iso: string): number | string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && new Date(ms).toISOString() === iso ? ms : iso;
}

const OldTrajectorySchema = z.looseObject({ turns: z.array(z.looseObject({})) });

function compactTrajectories(db: Database.Database): void {
  const stepKeys = db.prepare(
    'SELECT assistant_key, observations_key FROM steps WHERE rollout_id = ? ORDER BY idx',
  );
  const update = db.prepare('UPDATE rollouts SET trajectory_ref = ? WHERE id = ?');
  const rows = db.prepare('SELECT id, trajectory_ref FROM rollouts').all() as {
    id: string;
    trajectory_ref: string;
  }[];
  for (const r of rows) {
    const t = checked(OldTrajectorySchema, JSON.parse(r.trajectory_ref));
    const steps = (stepKeys.all(r.id) as Record<string, unknown>[]).map((s) => ({
      assistant: keyOf(s.assistant_key),
      observations: keyOf(s.observations_key),
    }));
    update.run(JSON.stringify({ ...t, turns: compactTurns(t.turns, steps) }), r.id);
  }
}

/**
 * Schema v8 (issue #16): the rest of a request (model, sampling, tool list: the same for every
 * call of a role in a rollout) moves from each call into its call context, and a rollout's
 * evaluation (per-check details, about 1.4 KB) into a blob, where the evaluations of one task
 * under other conditions make it a small delta.
 */
export function contextRequests(db: Database.Database): void {
  db.exec(`
    CREATE TABLE contexts_v8 (
      id INTEGER PRIMARY KEY,
      run_id TEXT NOT NULL,
      rollout_id TEXT,
      task_id TEXT,
      role TEXT NOT NULL,
      provider TEXT NOT NULL,
      model TEXT NOT NULL,
      request_key BLOB NOT NULL      -- the request without its messages (see putRequestParts)
    );
    INSERT INTO contexts_v8 (run_id, rollout_id, task_id, role, provider, model, request_key)
      SELECT x.run_id, x.rollout_id, x.task_id, x.role, x.provider, x.model, c.request_key
      FROM llm_calls c JOIN call_contexts x ON x.id = c.context
      GROUP BY c.context, c.request_key ORDER BY MIN(c.id);
    CREATE INDEX contexts_v8_lookup ON contexts_v8(rollout_id, run_id, role, request_key);
    CREATE TABLE calls_v8 (
      id INTEGER PRIMARY KEY,
      context INTEGER NOT NULL REFERENCES contexts_v8(id),
      step INTEGER,
      request_hash BLOB NOT NULL,
      messages_key BLOB NOT NULL,
      response_key BLOB,
      response_rest TEXT,
      prompt_tokens INTEGER NOT NULL,
      cached_tokens INTEGER NOT NULL,
      completion_tokens INTEGER NOT NULL,
      cost_usd REAL NOT NULL,
      latency_ms REAL NOT NULL,
      cached INTEGER NOT NULL,
      error TEXT,
      created_at INTEGER NOT NULL
    );
    INSERT INTO calls_v8 SELECT c.id, n.id, c.step, c.request_hash, c.messages_key,
        c.response_key, c.response_rest, c.prompt_tokens, c.cached_tokens, c.completion_tokens,
        c.cost_usd, c.latency_ms, c.cached, c.error, c.created_at
      FROM llm_calls c JOIN call_contexts x ON x.id = c.context
      JOIN contexts_v8 n ON n.run_id = x.run_id AND n.rollout_id IS x.rollout_id
        AND n.task_id IS x.task_id AND n.role = x.role AND n.provider = x.provider
        AND n.model = x.model AND n.request_key = c.request_key
      ORDER BY c.id;
    DROP INDEX contexts_v8_lookup;
    DROP TABLE llm_calls;
    DROP TABLE call_contexts;
    ALTER TABLE contexts_v8 RENAME TO call_contexts;
    ALTER TABLE calls_v8 RENAME TO llm_calls;
    CREATE INDEX call_contexts_run ON call_contexts(run_id);
    CREATE INDEX call_contexts_rollout ON call_contexts(rollout_id);
    CREATE INDEX llm_calls_context ON llm_calls(context);
  `);
  const blobs = new BlobStore(db);
  const rows = db.prepare('SELECT id, evaluation FROM rollouts').all() as {
    id: string;
    evaluation: string;
  }[];
  const update = db.prepare('UPDATE rollouts SET evaluation = ? WHERE id = ?');
  for (const r of rows) update.run(keyColumn(blobs.put(r.evaluation)), r.id);
}

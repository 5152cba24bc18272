import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DatabaseError } from '../errors.js';
import {
  asDatabaseError,
  callsDocument,
  checkHeader,
  compress,
  fileSchema,
  hashKey,
  insertSql,
  LEGACY_VERSION,
  legacySchema,
  openDatabase,
  rolloutDocument,
  SCHEMA_VERSION,
  type CallPayload,
} from '../store/index.js';
import { hex, LegacyBlobs, type Usage } from './legacy-v12.js';

/** What `acon runs upgrade` did: schema versions, and file bytes before and after. */
export type Upgrade = {
  from: number;
  to: number;
  /** The file was written by the store before v2 (one row per step, content-addressed blobs). */
  legacy: boolean;
  bytes: { before: number; after: number } | null;
};

/**
 * Converts a schema-12 file of the store before v2 to this store (`acon runs upgrade`): every
 * run, rollout, call, checkpoint and guideline version, with the same ids, written into a new
 * file next to it that then replaces it. Call-cache entries whose call was deleted earlier
 * (the old `runs rm` kept them) have no document to point into and are left out. Run it while
 * no other acon command uses the file. Older files are refused with the way to schema 12.
 */
export function upgradeDatabase(file: string): Upgrade {
  if (!existsSync(file)) {
    throw new DatabaseError(file, 'no such file; give the database to upgrade with `run.db`', {
      options: ['run.db'],
    });
  }
  let schema;
  try {
    checkHeader(file);
    const db = new Database(file, { readonly: true, fileMustExist: true });
    schema = fileSchema(db);
    db.close();
  } catch (err) {
    throw asDatabaseError(err, file);
  }
  if (!schema.legacy) {
    openDatabase(file, 'write').close();
    return { from: schema.version, to: SCHEMA_VERSION, legacy: false, bytes: null };
  }
  if (schema.version !== LEGACY_VERSION) throw legacySchema(file, schema.version);
  const before = statSync(file).size;
  const next = `${file}.upgrading`;
  for (const f of [next, `${next}-wal`, `${next}-shm`]) rmSync(f, { force: true });
  const old = new Database(file, { timeout: 15_000 });
  try {
    // Everything of the old file is in the main file, and no other process writes meanwhile.
    old.pragma('wal_checkpoint(TRUNCATE)');
    old.exec('BEGIN IMMEDIATE');
    const db = openDatabase(next, 'write');
    try {
      db.function('hash_key', (h: unknown) => hashKey(hex(h)));
      db.prepare('ATTACH DATABASE ? AS old').run(file);
      db.transaction(() => convert(old, db))();
      db.exec('DETACH DATABASE old');
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    old.exec('ROLLBACK');
  } catch (err) {
    for (const f of [next, `${next}-wal`, `${next}-shm`]) rmSync(f, { force: true });
    throw asDatabaseError(err, file);
  } finally {
    old.close();
  }
  renameSync(next, file);
  for (const f of [`${next}-wal`, `${next}-shm`, `${file}-wal`, `${file}-shm`]) {
    rmSync(f, { force: true });
  }
  const after = statSync(file).size;
  return { from: LEGACY_VERSION, to: SCHEMA_VERSION, legacy: true, bytes: { before, after } };
}

type OldCall = Usage & {
  id: number;
  rollout_id: string | null;
  task_id: string | null;
  request_hash: unknown;
  request_key: unknown;
  messages_key: unknown;
  response_key: unknown;
  response_rest: string | null;
  created_at: number | string;
};

/** Calls of a run made outside finished rollouts, at most this many to a run document. */
const RUN_DOCUMENT_CALLS = 500;

/** Rows of the old file (attached as `old`) copied by SQL; texts decoded and documents built in JavaScript. */
const COPY = `
  INSERT INTO runs (id, kind, command, bench, provider, models, simulated, params, config, status,
      summary, created_at, finished_at, owner_pid, owner_host, heartbeat_at)
    SELECT id, kind, command, bench, provider, models, simulated, params, config, status, summary,
      created_at, finished_at, owner_pid, owner_host, heartbeat_at FROM old.runs ORDER BY rowid;
  INSERT INTO run_state SELECT * FROM old.run_state;
  INSERT INTO guideline_versions SELECT * FROM old.guideline_versions;
  INSERT INTO rollout_ids (id, run)
    SELECT x.rollout_id, r.n FROM old.call_contexts x JOIN runs r ON r.id = x.run_id
      WHERE x.rollout_id IS NOT NULL GROUP BY x.rollout_id ORDER BY MIN(x.id);
  INSERT OR IGNORE INTO rollout_ids (id, run)
    SELECT o.id, r.n FROM old.rollouts o JOIN runs r ON r.id = o.run_id ORDER BY o.rowid;
  INSERT INTO calls (id, run, rollout, step, role, provider, model, request_hash, prompt_tokens,
      cached_tokens, completion_tokens, cost_usd, latency_ms, cached, error)
    SELECT c.id, r.n, i.n, c.step, x.role, x.provider, x.model, hash_key(c.request_hash),
      c.prompt_tokens, c.cached_tokens, c.completion_tokens, c.cost_usd, c.latency_ms, c.cached,
      c.error
    FROM old.llm_calls c JOIN old.call_contexts x ON x.id = c.context JOIN runs r ON r.id = x.run_id
      LEFT JOIN rollout_ids i ON i.id = x.rollout_id ORDER BY c.id;
  -- A cache entry points to the first call that got a fresh answer to its request.
  INSERT INTO llm_cache (request_hash, call)
    SELECT request_hash, MIN(id) FROM calls WHERE cached = 0 AND error IS NULL
      AND request_hash IN (SELECT hash_key(request_hash) FROM old.llm_cache)
    GROUP BY request_hash;
`;

function convert(old: Database.Database, db: Database.Database): void {
  db.exec(COPY);
  const blobs = new LegacyBlobs(old);
  const move = db.prepare('UPDATE calls SET doc = ? WHERE id = ?');
  for (const { id: runId, n: run } of db.prepare('SELECT id, n FROM runs').all() as {
    id: string;
    n: number;
  }[]) {
    const calls = old
      .prepare(
        `SELECT c.*, x.rollout_id, x.task_id, x.request_key FROM call_contexts x
         JOIN llm_calls c ON c.context = x.id WHERE x.run_id = ? ORDER BY c.id`,
      )
      .all(runId) as OldCall[];
    const payload = (c: OldCall): CallPayload => ({
      id: c.id,
      taskId: c.task_id,
      createdAt: typeof c.created_at === 'number' ? c.created_at : Date.parse(c.created_at),
      request: blobs.request(hex(c.messages_key), hex(c.request_key)) as CallPayload['request'],
      response:
        c.response_key === null ? null : blobs.response(hex(c.response_key), c.response_rest, c),
    });
    const writeDoc = (raw: Buffer, own: readonly OldCall[]) => {
      const row = { run, size: raw.length, data: compress(raw) };
      const doc = Number(db.prepare(insertSql('docs', row)).run(row).lastInsertRowid);
      for (const c of own) move.run(doc, c.id);
      return doc;
    };
    const rollouts = old
      .prepare('SELECT * FROM rollouts WHERE run_id = ? ORDER BY rowid')
      .all(runId) as Record<string, unknown>[];
    const done = new Set(rollouts.map((r) => r.id));
    for (const { trajectory_ref, evaluation, ...row } of rollouts) {
      const own = calls.filter((c) => c.rollout_id === row.id);
      const sections = rolloutSections(old, blobs, String(row.id), String(trajectory_ref));
      const doc = writeDoc(rolloutDocument(sections, own.map(payload)), own);
      const n = db.prepare('SELECT n FROM rollout_ids WHERE id = ?').pluck().get(row.id);
      const full = { ...row, n, evaluation: compress(blobs.get(hex(evaluation))), doc };
      db.prepare(insertSql('rollouts', full)).run(full);
    }
    const rest = calls.filter((c) => c.rollout_id === null || !done.has(c.rollout_id));
    for (let i = 0; i < rest.length; i += RUN_DOCUMENT_CALLS) {
      const part = rest.slice(i, i + RUN_DOCUMENT_CALLS);
      writeDoc(callsDocument(part.map(payload)), part);
    }
  }
}

/** A schema-12 rollout's trajectory, steps (prompts included) and compression events. */
function rolloutSections(old: Database.Database, blobs: LegacyBlobs, id: string, ref: string) {
  const steps = old
    .prepare(
      `SELECT s.*, c.messages_key FROM steps s LEFT JOIN llm_calls c ON c.id = s.call_id
       WHERE s.rollout_id = ? ORDER BY s.idx`,
    )
    .all(id) as Record<string, unknown>[];
  const keys = steps.map((s) => ({
    assistant: hex(s.assistant_key),
    observations: hex(s.observations_key),
  }));
  const events = old
    .prepare('SELECT * FROM compression_events WHERE rollout_id = ? ORDER BY seq')
    .all(id) as Record<string, unknown>[];
  return {
    trajectory: blobs.trajectory(ref, keys),
    steps: steps.map((s, i) => ({
      index: s.idx as number,
      prompt: blobs.messages(hex(s.prompt_key ?? s.messages_key)),
      promptTokens: s.prompt_tokens as number,
      assistant: blobs.json(keys[i]!.assistant),
      observations: blobs.messages(keys[i]!.observations),
      observationTokens: s.observation_tokens as number,
      latencyMs: s.latency_ms as number,
      callId: s.call_id as number | null,
    })),
    events: events.map((e) => ({
      kind: e.kind,
      step: e.step,
      inputTokens: e.input_tokens,
      outputTokens: e.output_tokens,
      input: blobs.get(hex(e.input_key)),
      output: blobs.get(hex(e.output_key)),
      guidelineId: e.guideline_id ?? null,
      callId: e.call_id ?? null,
      failed: e.failed === 1,
    })),
  };
}

import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DatabaseError } from '../errors.js';
import { compress, documentText, rolloutDocument, type CallPayload } from './document.js';
import { hex, LegacyBlobs, type Usage } from './legacy-v12.js';
import { asDatabaseError, checkHeader, openDatabase } from './open.js';
import { hashKey } from './run-store.js';
import { fileSchema, LEGACY_VERSION, legacySchema, SCHEMA_VERSION } from './schema.js';

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
    throw new DatabaseError(file, `no such file; give the database to upgrade with --db`);
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
      db.transaction(() => convert(old, db))();
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
  run_id: string;
  rollout_id: string | null;
  task_id: string | null;
  role: string;
  provider: string;
  model: string;
  step: number | null;
  request_hash: unknown;
  request_key: unknown;
  messages_key: unknown;
  response_key: unknown;
  response_rest: string | null;
  cost_usd: number;
  latency_ms: number;
  cached: number;
  error: string | null;
  created_at: number | string;
};

/** Calls of a run made outside finished rollouts, at most this many to a run document. */
const RUN_DOCUMENT_CALLS = 500;

function convert(old: Database.Database, db: Database.Database): void {
  const blobs = new LegacyBlobs(old);
  const insert = (table: string, row: Record<string, unknown>) =>
    db
      .prepare(
        `INSERT INTO ${table} (${Object.keys(row).join(', ')})
         VALUES (${Object.keys(row)
           .map(() => '?')
           .join(', ')})`,
      )
      .run(...Object.values(row)).lastInsertRowid;
  for (const table of ['guideline_versions']) {
    for (const row of old.prepare(`SELECT * FROM ${table}`).all())
      insert(table, row as object as Record<string, unknown>);
  }
  /** A call-cache key's call: the first that got a fresh answer for it. */
  const answered = new Map<string, number>();
  const runs = old.prepare('SELECT * FROM runs ORDER BY rowid').all() as Record<string, unknown>[];
  for (const r of runs) {
    const run = Number(insert('runs', r));
    for (const s of old.prepare('SELECT * FROM run_state WHERE run_id = ?').all(r.id)) {
      insert('run_state', s as Record<string, unknown>);
    }
    const calls = old
      .prepare(
        `SELECT c.*, x.run_id, x.rollout_id, x.task_id, x.role, x.provider, x.model, x.request_key
         FROM call_contexts x JOIN llm_calls c ON c.context = x.id WHERE x.run_id = ?
         ORDER BY c.id`,
      )
      .all(r.id) as OldCall[];
    const numbers = new Map<string, number>();
    const rolloutNumber = (id: string) => {
      let n = numbers.get(id);
      if (n === undefined) numbers.set(id, (n = Number(insert('rollout_ids', { id, run }))));
      return n;
    };
    for (const c of calls) {
      const hash = hex(c.request_hash);
      if (c.response_key !== null && c.cached === 0 && !answered.has(hash))
        answered.set(hash, c.id);
      insert('calls', {
        id: c.id,
        run,
        rollout: c.rollout_id === null ? null : rolloutNumber(c.rollout_id),
        step: c.step,
        role: c.role,
        provider: c.provider,
        model: c.model,
        request_hash: hashKey(hash),
        prompt_tokens: c.prompt_tokens,
        cached_tokens: c.cached_tokens,
        completion_tokens: c.completion_tokens,
        cost_usd: c.cost_usd,
        latency_ms: c.latency_ms,
        cached: c.cached,
        error: c.error,
      });
    }
    const payload = (c: OldCall): CallPayload => ({
      id: c.id,
      requestHash: hex(c.request_hash),
      taskId: c.task_id,
      createdAt: typeof c.created_at === 'number' ? c.created_at : Date.parse(c.created_at),
      request: blobs.request(hex(c.messages_key), hex(c.request_key)) as CallPayload['request'],
      response:
        c.response_key === null ? null : blobs.response(hex(c.response_key), c.response_rest, c),
    });
    const writeDoc = (text: string, ids: readonly number[]) => {
      const doc = Number(
        insert('docs', { run, size: Buffer.byteLength(text), data: compress(text) }),
      );
      const move = db.prepare('UPDATE calls SET doc = ? WHERE id = ?');
      for (const id of ids) move.run(doc, id);
      return doc;
    };
    const done = new Set<string>();
    const rollouts = old
      .prepare('SELECT * FROM rollouts WHERE run_id = ? ORDER BY rowid')
      .all(r.id) as Record<string, unknown>[];
    for (const { trajectory_ref, evaluation, ...row } of rollouts) {
      const id = row.id as string;
      done.add(id);
      const own = calls.filter((c) => c.rollout_id === id);
      const text = rolloutDocument(
        rolloutSections(old, blobs, id, String(trajectory_ref)),
        own.map(payload),
      );
      const doc = writeDoc(
        text,
        own.map((c) => c.id),
      );
      insert('rollouts', {
        ...row,
        n: rolloutNumber(id),
        evaluation: blobs.get(hex(evaluation)),
        doc,
      });
    }
    const rest = calls.filter((c) => c.rollout_id === null || !done.has(c.rollout_id));
    for (let i = 0; i < rest.length; i += RUN_DOCUMENT_CALLS) {
      const part = rest.slice(i, i + RUN_DOCUMENT_CALLS);
      writeDoc(
        documentText({ calls: JSON.stringify(part.map(payload)) }),
        part.map((c) => c.id),
      );
    }
  }
  for (const row of old.prepare('SELECT request_hash FROM llm_cache').pluck().all() as string[]) {
    const call = answered.get(row);
    if (call !== undefined) insert('llm_cache', { request_hash: hashKey(row), call });
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

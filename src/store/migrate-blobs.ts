import type Database from 'better-sqlite3';
import { BlobStore } from './blobs.js';
import { putMessagesJson, putRequestV4, putResponseV4, putTrajectoryV4 } from './codec.js';

/**
 * Schema version 3 (issue #16): adds the `blobs` table and rewrites the large JSON columns of
 * rollouts, steps, compression events and LLM calls in place as blob references. A column whose
 * meaning changes is renamed, so a reader still expecting JSON fails loudly instead of parsing
 * keys. Old rows are converted batch by batch (better-sqlite3 cannot write while iterating).
 */
export function convertToBlobs(db: Database.Database): void {
  db.exec(`
    CREATE TABLE blobs (
      key TEXT PRIMARY KEY,          -- first 128 bits of the SHA-256 of the text, hex
      encoding INTEGER NOT NULL,     -- 0 the text as is, 1 raw deflate, 2 brotli
      size INTEGER NOT NULL,         -- UTF-8 bytes of the text
      data BLOB NOT NULL
    );
    ALTER TABLE rollouts RENAME COLUMN trajectory TO trajectory_ref;      -- JSON, texts by key
    ALTER TABLE steps RENAME COLUMN prompt TO prompt_key;                 -- message list key
    ALTER TABLE steps RENAME COLUMN assistant TO assistant_key;           -- message key
    ALTER TABLE steps RENAME COLUMN observations TO observations_key;     -- message list key
    ALTER TABLE compression_events RENAME COLUMN input TO input_key;      -- text key
    ALTER TABLE compression_events RENAME COLUMN output TO output_key;    -- text key
    ALTER TABLE llm_calls RENAME COLUMN request TO request_ref;           -- JSON, messages by key
    ALTER TABLE llm_calls RENAME COLUMN response TO response_ref;         -- JSON, message by key
    CREATE INDEX compression_events_rollout ON compression_events(rollout_id);
    CREATE INDEX compression_events_call ON compression_events(call_id);
  `);
  const blobs = new BlobStore(db);
  rewrite(db, 'rollouts', ['trajectory_ref'], ([t]) => [
    putTrajectoryV4(blobs, JSON.parse(t!) as Record<string, unknown>),
  ]);
  rewrite(db, 'steps', ['prompt_key', 'assistant_key', 'observations_key'], ([p, a, o]) => [
    putMessagesJson(blobs, p!),
    blobs.put(a!),
    putMessagesJson(blobs, o!),
  ]);
  rewrite(db, 'compression_events', ['input_key', 'output_key'], ([i, o]) => [
    blobs.put(i!),
    blobs.put(o!),
  ]);
  rewrite(db, 'llm_calls', ['request_ref', 'response_ref'], ([q, r]) => [
    putRequestV4(blobs, JSON.parse(q!) as Record<string, unknown>),
    r === null ? null : putResponseV4(blobs, JSON.parse(r!) as Record<string, unknown>),
  ]);
}

const BATCH = 500;

function rewrite(
  db: Database.Database,
  table: string,
  columns: string[],
  convert: (values: (string | null)[]) => (string | null)[],
): void {
  const select = db.prepare(
    `SELECT rowid AS rid, ${columns.join(', ')} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH}`,
  );
  const update = db.prepare(
    `UPDATE ${table} SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE rowid = ?`,
  );
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const rows = select.all(after) as Record<string, string | null>[];
    if (rows.length === 0) return;
    for (const row of rows) {
      update.run(...convert(columns.map((c) => row[c] ?? null)), row.rid);
      after = Number(row.rid);
    }
  }
}

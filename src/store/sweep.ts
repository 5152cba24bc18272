import type Database from 'better-sqlite3';
import { BlobStore } from './blobs.js';
import { keyOf, messageListKeys, requestPartKeys, trajectoryKeys } from './codec.js';

/**
 * Deletes the blobs no row refers to any more (after runs were deleted): marks every key the
 * rollouts, steps, compression events and LLM calls refer to, and every blob those refer to in
 * turn, then removes the rest. Blobs are shared
 * between runs, so only a full mark is safe. Returns the number of blobs removed.
 */
export function sweepBlobs(db: Database.Database, blobs: BlobStore): number {
  const live = new Set<string>();
  const mark = (keys: Iterable<string>) => {
    for (const k of keys) live.add(k);
  };
  const column = (sql: string) => db.prepare(sql).pluck().iterate() as IterableIterator<unknown>;
  for (const k of column('SELECT evaluation FROM rollouts')) live.add(keyOf(k));
  for (const ref of column('SELECT trajectory_ref FROM rollouts')) {
    mark(trajectoryKeys(blobs, ref as string));
  }
  for (const s of db
    .prepare('SELECT prompt_key, assistant_key, observations_key FROM steps')
    .iterate()) {
    const { prompt_key, assistant_key, observations_key } = s as Record<string, unknown>;
    // NULL: the prompt is the agent call's message list, marked with the calls below.
    if (prompt_key !== null) mark(messageListKeys(blobs, keyOf(prompt_key)));
    mark(messageListKeys(blobs, keyOf(observations_key)));
    live.add(keyOf(assistant_key));
  }
  for (const k of column('SELECT input_key FROM compression_events')) live.add(keyOf(k));
  for (const k of column('SELECT output_key FROM compression_events')) live.add(keyOf(k));
  const calls = db.prepare(
    'SELECT c.messages_key, x.request_key FROM llm_calls c JOIN call_contexts x ON x.id = c.context',
  );
  for (const c of calls.iterate()) {
    const { messages_key, request_key } = c as Record<string, unknown>;
    mark(requestPartKeys(blobs, keyOf(messages_key), keyOf(request_key)));
  }
  for (const k of column('SELECT response_key FROM llm_calls WHERE response_key IS NOT NULL')) {
    live.add(keyOf(k));
  }
  return removeUnreachable(db, blobs, live);
}

/**
 * Deletes every blob neither in `live` nor needed to read one that is: a delta keeps the texts
 * it copies from, a skeleton its strings, and so on down. Returns the number removed.
 */
export function removeUnreachable(
  db: Database.Database,
  blobs: BlobStore,
  live: Set<string>,
): number {
  const refs = new Map<string, string[]>();
  const referring = db.prepare(
    `SELECT key, encoding, data FROM blobs WHERE encoding IN (${BlobStore.REFERRING_ENCODINGS.join(',')})`,
  );
  for (const row of referring.iterate()) {
    const { key, encoding, data } = row as { key: string | Buffer; encoding: number; data: Buffer };
    refs.set(BlobStore.keyText(key), BlobStore.references(encoding, data));
  }
  const pending = [...live].filter((k) => refs.has(k));
  while (pending.length > 0) {
    for (const k of refs.get(pending.pop()!) ?? []) {
      if (live.has(k)) continue;
      live.add(k);
      if (refs.has(k)) pending.push(k);
    }
  }
  const dead = (db.prepare('SELECT key FROM blobs').pluck().all() as (string | Buffer)[])
    .map(BlobStore.keyText)
    .filter((k) => !live.has(k));
  blobs.remove(dead);
  return dead.length;
}

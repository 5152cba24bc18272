import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BlobStore, blobKey } from '../src/store/blobs.js';
import { SqliteRunStore } from '../src/store/run-store.js';

/**
 * Schema version 9 stores the blobs table's keys as bytes. `store-schema-v6.db.gz` (written by
 * acon at schema 6, hex keys; see store-migration-v6.test.ts, which checks what the store and
 * the CLI read from the upgraded file) is upgraded through it here, blob by blob.
 */
const FIXTURE = new URL('./fixtures/store-schema-v6.db.gz', import.meta.url);

function copyFixture(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'acon-migrate-blob-keys-')), 'acon.db');
  writeFileSync(file, gunzipSync(readFileSync(FIXTURE)));
  return file;
}

describe('migration to binary blob keys (schema 9)', () => {
  it('keeps every blob of a version 6 file, each one reading back to the text of its key', () => {
    const file = copyFixture();
    const old = new Database(file, { readonly: true });
    expect(old.pragma('user_version', { simple: true })).toBe(6);
    expect(BlobStore.binaryKeys(old)).toBe(false);
    const oldKeys = new Set(old.prepare('SELECT key FROM blobs').pluck().all() as string[]);
    old.close();
    expect(oldKeys.size).toBeGreaterThan(500);

    new SqliteRunStore(file).close(); // a writing command upgrades the file
    const db = new Database(file, { readonly: true });
    expect(BlobStore.binaryKeys(db)).toBe(true);
    const stored = db.prepare('SELECT key FROM blobs').pluck().all() as Buffer[];
    expect(stored.every((k) => Buffer.isBuffer(k) && k.length === 16)).toBe(true);
    const keys = stored.map(BlobStore.keyText);
    // The upgrade to schema 7 adds blobs of its own (request settings apart from messages).
    for (const k of oldKeys) expect(keys).toContain(k);
    // Byte for byte: a key is the hash of its text.
    const blobs = new BlobStore(db);
    for (const key of keys) expect(blobKey(blobs.get(key))).toBe(key);
    db.close();
  });
});

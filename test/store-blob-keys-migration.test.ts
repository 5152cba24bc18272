import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BlobStore, blobKey } from '../src/store/blobs.js';
import { SqliteRunStore } from '../src/store/run-store.js';
import { runAcon, tempDir } from './helpers/cli.js';

/**
 * `store-schema-v6.db.gz` was written by acon at schema version 6 (blob keys as hex text,
 * deltas with one base): `acon run --bench apptown --split dev --tasks dev-011-shop-wallet-music
 * --strategy acon`, offline. `store-schema-v6.expected.json` holds what that acon printed for
 * it: `acon runs show RUN` as text, and the SHA-256 of `acon runs show RUN --json`, `acon rollout
 * show ID --json` and `acon rollout show ID --full` (1.7 MB and more of text). After a deliberate
 * change of those outputs' layout, replace them with what the new acon prints for the migrated
 * fixture.
 */
const FIXTURE = new URL('./fixtures/store-schema-v6.db.gz', import.meta.url);
const EXPECTED = JSON.parse(
  readFileSync(new URL('./fixtures/store-schema-v6.expected.json', import.meta.url), 'utf8'),
) as { run: string; rollout: string; runsShow: string; sha256: Record<string, string> };

function copyFixture(): string {
  const dir = mkdtempSync(join(tmpdir(), 'acon-migrate-v6-'));
  const file = join(dir, 'acon.db');
  writeFileSync(file, gunzipSync(readFileSync(FIXTURE)));
  return file;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('migration to binary blob keys', () => {
  it('keeps every blob of a version 6 file, each one reading back to the text of its key', () => {
    const file = copyFixture();
    const old = new Database(file, { readonly: true });
    expect(old.pragma('user_version', { simple: true })).toBe(6);
    const oldKeys = (old.prepare('SELECT key FROM blobs').pluck().all() as string[]).sort();
    old.close();
    expect(oldKeys.length).toBeGreaterThan(500);

    new SqliteRunStore(file).close(); // a writing command upgrades the file
    const db = new Database(file, { readonly: true });
    expect(BlobStore.binaryKeys(db)).toBe(true);
    const stored = db.prepare('SELECT key FROM blobs').pluck().all() as Buffer[];
    expect(stored.every((k) => Buffer.isBuffer(k) && k.length === 16)).toBe(true);
    const keys = stored.map(BlobStore.keyText).sort();
    expect(keys).toEqual(oldKeys);
    // Byte for byte: a key is the hash of its text.
    const blobs = new BlobStore(db);
    for (const key of keys) expect(blobKey(blobs.get(key))).toBe(key);
    db.close();
  });

  it('prints runs show and rollout show as the acon of schema version 6 did', async () => {
    const file = copyFixture();
    new SqliteRunStore(file).close();
    const cwd = tempDir();
    const acon = async (...args: string[]) => {
      const r = await runAcon([...args, '--db', file], { cwd });
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.code, args.join(' ')).toBe(0);
      return r.stdout;
    };
    expect(await acon('runs', 'show', EXPECTED.run)).toBe(EXPECTED.runsShow);
    expect(sha256(await acon('runs', 'show', EXPECTED.run, '--json'))).toBe(
      EXPECTED.sha256.runsShowJson,
    );
    expect(sha256(await acon('rollout', 'show', EXPECTED.rollout, '--json'))).toBe(
      EXPECTED.sha256.rolloutShowJson,
    );
    const full = await acon('rollout', 'show', EXPECTED.rollout, '--full');
    expect(sha256(full)).toBe(EXPECTED.sha256.rolloutShowFull);
  });
});

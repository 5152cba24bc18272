import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BlobStore } from './blobs.js';
import { removeUnreachable } from './sweep.js';

function database(): Database.Database {
  const db = new Database(':memory:');
  db.exec(
    'CREATE TABLE blobs (key BLOB PRIMARY KEY NOT NULL, encoding INTEGER, size INTEGER, data BLOB)',
  );
  return db;
}

const facts = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `- ${prefix} fact ${i}: amount=${i * 7}.25 | status=ok`).join(
    '\n',
  );

describe('removeUnreachable', () => {
  it('keeps every text a live blob copies from, through deltas of several sources and skeletons', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const a = blobs.put(facts('alpha', 40));
    const b = blobs.put(facts('beta', 40));
    // Copies from both a and b.
    const text = `${facts('alpha', 40)}\n- between\n${facts('beta', 40)}\n- end`;
    const both = blobs.put(text);
    const message = { role: 'user', content: text };
    const skeleton = blobs.putJson(message);
    const dead = blobs.put(facts('gamma', 40));
    const row = db.prepare('SELECT encoding FROM blobs WHERE key = ?').pluck();
    expect(row.get(Buffer.from(both, 'hex'))).toBe(5);
    expect(row.get(Buffer.from(skeleton, 'hex'))).toBe(4);

    expect(removeUnreachable(db, blobs, new Set([skeleton]))).toBe(1);
    const reader = new BlobStore(db);
    expect(reader.getJson(skeleton)).toEqual(message);
    expect(reader.get(both)).toBe(text);
    expect([a, b].map((k) => reader.get(k))).toEqual([facts('alpha', 40), facts('beta', 40)]);
    expect(() => reader.get(dead)).toThrow(/missing/);
  });
});

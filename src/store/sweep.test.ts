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
    expect(row.get(Buffer.from(both, 'hex'))).toBe(10);
    expect(row.get(Buffer.from(skeleton, 'hex'))).toBe(8);

    expect(removeUnreachable(db, blobs, new Set([skeleton]))).toBe(1);
    const reader = new BlobStore(db);
    expect(reader.getJson(skeleton)).toEqual(message);
    expect(reader.get(both)).toBe(text);
    expect([a, b].map((k) => reader.get(k))).toEqual([facts('alpha', 40), facts('beta', 40)]);
    expect(() => reader.get(dead)).toThrow(/missing/);
  });

  it('keeps the list of keys a live list extends', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const messages = ['a', 'b', 'c', 'd'].map((m) => blobs.put(m));
    const short = blobs.putJson(messages.slice(0, 2));
    const long = blobs.putJson(messages);
    expect(removeUnreachable(db, blobs, new Set([long, ...messages]))).toBe(0);
    expect(new BlobStore(db).getJson(long)).toEqual(messages);
    expect(removeUnreachable(db, blobs, new Set([short, ...messages]))).toBe(1);
    expect(new BlobStore(db).getJson(short)).toEqual(messages.slice(0, 2));
  });

  it('keeps the dictionary text a live short text was deflated with', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const note = (i: number) =>
      `{"role":"tool","tool_call_id":"call_${i}","content":"Sent $${i}.50 to Annabel Shanahan, transaction ${190128 + i}."}`;
    const keys = Array.from({ length: 12 }, (_, i) => blobs.put(note(i)));
    const last = keys[keys.length - 1]!;
    const encoding = db.prepare('SELECT encoding FROM blobs WHERE key = ?').pluck();
    expect(encoding.get(Buffer.from(last, 'hex'))).toBe(11);
    // The first dictionary is the first note itself; the other notes go.
    expect(removeUnreachable(db, blobs, new Set([last]))).toBe(10);
    expect(new BlobStore(db).get(last)).toBe(note(11));
    expect(db.prepare('SELECT COUNT(*) FROM blobs').pluck().get()).toBe(2);
  });
});

import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BlobStore } from './blobs.js';

function database(): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE blobs (key TEXT PRIMARY KEY, encoding INTEGER, size INTEGER, data BLOB)');
  return db;
}

/** Version `v` of a history summary that gains a completed step and a fact line each time. */
function summary(v: number): string {
  const done = Array.from({ length: v }, (_, i) => `- Step ${i + 1} of 90: wallet.show_payment`);
  const facts = Array.from(
    { length: v * 2 },
    (_, i) => `- amount=${(i * 37.13) % 997} | description=Payment ${i} | status=pending`,
  );
  return `COMPLETED:\n${done.join('\n')}\nFACTS:\n${facts.join('\n')}`;
}

const encodings = (db: Database.Database) =>
  Object.fromEntries(
    (
      db.prepare('SELECT encoding, COUNT(*) AS n FROM blobs GROUP BY encoding').all() as {
        encoding: number;
        n: number;
      }[]
    ).map((r) => [r.encoding, r.n]),
  );

describe('BlobStore', () => {
  it('stores the versions of a growing text in several forms as deltas and reads them back exactly', () => {
    const db = database();
    const blobs = new BlobStore(db, 'deflate');
    const written = new Map<string, string>();
    let rawBytes = 0;
    // 90 versions: past the longest delta chain, so some versions are stored whole again.
    for (let v = 1; v <= 90; v++) {
      const s = summary(v);
      const forms = [
        [blobs.put(s), s],
        [blobs.put(`Previous summary:\n${s}\n\n[Turn ${v}]\nAssistant: step ${v}`), null],
        [blobs.putJson({ role: 'assistant', content: `# History Summary\n${s}` }), null],
        [blobs.putJson({ role: 'user', content: `[Context summary] Turns 1-${v}\n${s}` }), null],
      ] as const;
      for (const [key] of forms) {
        const text = blobs.get(key);
        written.set(key, text);
        rawBytes += text.length;
      }
      expect(forms[0][1]).toBe(written.get(forms[0][0]));
    }
    const stored = db.prepare('SELECT SUM(LENGTH(data)) FROM blobs').pluck().get() as number;
    expect(stored).toBeLessThan(rawBytes / 20);
    const kinds = encodings(db);
    expect(kinds[3]).toBeGreaterThan(100); // deltas
    expect(kinds[4]).toBeGreaterThan(100); // skeletons
    // A fresh store has nothing cached: every text is rebuilt from the file.
    const reader = new BlobStore(db);
    for (const [key, text] of written) expect(reader.get(key)).toBe(text);
  });

  it('never writes a delta against a base whose transaction was rolled back', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const base = summary(30);
    expect(() =>
      db.transaction(() => {
        blobs.put(base);
        throw new Error('rollback');
      })(),
    ).toThrow('rollback');
    const next = `${base}\n- one more line`;
    const key = blobs.put(next);
    expect(new BlobStore(db).get(key)).toBe(next);
    expect(encodings(db)[3]).toBeUndefined();
  });

  it('names the blobs a delta or a skeleton refers to', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const a = blobs.put(summary(20));
    const b = blobs.put(summary(21));
    const m = blobs.putJson({ role: 'user', content: summary(22) });
    const refs = (key: string) => {
      const row = db.prepare('SELECT encoding, data FROM blobs WHERE key = ?').get(key) as {
        encoding: number;
        data: Buffer;
      };
      return BlobStore.references(row.encoding, row.data);
    };
    expect(refs(a)).toEqual([]);
    expect(refs(b)).toEqual([a]);
    expect(refs(m)).toHaveLength(1);
    expect(blobs.get(refs(m)[0]!)).toBe(summary(22));
  });
});

import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../seeded-random.js';
import { BlobStore, blobKey } from './blobs.js';

/** The table as schema version 9 has it (`text`: as versions 3 to 8 had it). */
function database(keys: 'binary' | 'text' = 'binary'): Database.Database {
  const db = new Database(':memory:');
  const type = keys === 'binary' ? 'BLOB' : 'TEXT';
  db.exec(
    `CREATE TABLE blobs (key ${type} PRIMARY KEY NOT NULL, encoding INTEGER, size INTEGER, data BLOB)`,
  );
  return db;
}

/** A blob's row (keys as the table holds them). */
function row(db: Database.Database, key: string): { encoding: number; data: Buffer } {
  const k = BlobStore.binaryKeys(db) ? Buffer.from(key, 'hex') : key;
  return db.prepare('SELECT encoding, data FROM blobs WHERE key = ?').get(k) as {
    encoding: number;
    data: Buffer;
  };
}

/** Every blob a reader decodes to rebuild the text of `key` (its references, theirs, …). */
function closure(db: Database.Database, key: string): Set<string> {
  const out = new Set<string>();
  const pending = [key];
  while (pending.length > 0) {
    const r = row(db, pending.pop()!);
    for (const k of BlobStore.references(r.encoding, r.data)) {
      if (!out.has(k)) pending.push(k);
      out.add(k);
    }
  }
  return out;
}

/** A JSON observation of `n` items, as an API answers (pretty-printed, one field a line). */
function observation(seed: string, n: number): string {
  const random = seededRandom(seed);
  const items = Array.from({ length: n }, (_, i) => ({
    id: Math.floor(random() * 1e6),
    title: `${seed} item ${i}`,
    amount: Math.round(random() * 1e5) / 100,
    url: `https://example.test/${seed}/${Math.floor(random() * 1e9).toString(36)}`,
  }));
  return JSON.stringify({ page_index: 0, items }, null, 2);
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
  it.each(['binary', 'text'] as const)(
    'stores the versions of a growing text in several forms as deltas and reads them back exactly (%s keys)',
    (layout) => {
      const db = database(layout);
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
      expect(kinds[10]).toBeGreaterThan(100); // deltas
      expect(kinds[8]).toBeGreaterThan(100); // skeletons
      // A fresh store has nothing cached: every text is rebuilt from the file.
      const reader = new BlobStore(db);
      for (const [key, text] of written) expect(reader.get(key)).toBe(text);
      // No text needs more than 64 other blobs decoded to be read (a skeleton, one more: its
      // string).
      for (const key of written.keys()) expect(closure(db, key).size).toBeLessThanOrEqual(65);
    },
  );

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
    expect(encodings(db)[10]).toBeUndefined();
  });

  it('names the blobs a delta or a skeleton refers to', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const a = blobs.put(summary(20));
    const b = blobs.put(summary(21));
    const m = blobs.putJson({ role: 'user', content: summary(22) });
    const refs = (key: string) => BlobStore.references(row(db, key).encoding, row(db, key).data);
    expect(refs(a)).toEqual([]);
    expect(refs(b)).toEqual([a]);
    expect(refs(m)).toHaveLength(1);
    expect(blobs.get(refs(m)[0]!)).toBe(summary(22));
  });

  it('stores a text that quotes several stored texts as copies of all of them', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const history = Array.from({ length: 30 }, (_, i) => `[Turn ${i}] ${observation(`h${i}`, 1)}`);
    const first = blobs.put(`<task>\nA task\n</task>\n${history.join('\n')}`);
    const quoted = observation('newest', 12);
    const quotedKey = blobs.put(quoted);
    const next = `<task>\nA task\n</task>\n${history.join('\n')}\n[Turn 30] Observation: ${quoted}`;
    const key = blobs.put(next);
    expect(row(db, key).encoding).toBe(10);
    expect(new Set(BlobStore.references(row(db, key).encoding, row(db, key).data))).toEqual(
      new Set([first, quotedKey]),
    );
    // Both copies and the new text together cost far less than the new text alone.
    expect(row(db, key).data.length).toBeLessThan(row(db, quotedKey).data.length / 2);
    expect(new BlobStore(db).get(key)).toBe(next);
  });

  it('copies from a text no longer held in memory, read back from the file', () => {
    const db = database();
    const blobs = new BlobStore(db, 'deflate', { deltaMemoryChars: 20_000 });
    const old = observation('old', 60);
    const oldKey = blobs.put(old);
    expect(old.length).toBeGreaterThan(5_000);
    // Enough other long texts to push it out of memory.
    for (let i = 0; i < 10; i++) blobs.put(observation(`other-${i}`, 60));
    const again = `${old}\n- read again`;
    const key = blobs.put(again);
    expect(row(db, key).encoding).toBe(10);
    expect(BlobStore.references(row(db, key).encoding, row(db, key).data)).toEqual([oldKey]);
    expect(new BlobStore(db).get(key)).toBe(again);
  });

  it('keeps keys as 16-byte BLOBs in a version 9 table and as hex in an older one', () => {
    for (const layout of ['binary', 'text'] as const) {
      const db = database(layout);
      const key = new BlobStore(db).put('a text');
      expect(key).toBe(blobKey('a text'));
      const stored = db.prepare('SELECT key FROM blobs').pluck().get() as Buffer | string;
      expect(stored).toEqual(layout === 'binary' ? Buffer.from(key, 'hex') : key);
      expect(BlobStore.keyText(stored)).toBe(key);
    }
  });

  it('stores a list of keys as their bytes, and one that extends a stored list as the keys it adds', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const messages = Array.from({ length: 40 }, (_, i) => blobs.put(`message ${i}`));
    const lists = Array.from({ length: 20 }, (_, step) => messages.slice(0, 2 + 2 * step));
    const keys = lists.map((l) => blobs.putJson(l));
    const first = row(db, keys[0]!);
    expect(first.encoding).toBe(6);
    expect(first.data.length).toBe(32);
    for (const [i, key] of keys.entries()) {
      if (i === 0) continue;
      const r = row(db, key);
      expect(r.encoding).toBe(7);
      expect(r.data.length).toBe(16 * 3); // the list it extends, and two keys
      expect(BlobStore.references(r.encoding, r.data)).toEqual([keys[i - 1]]);
    }
    const reader = new BlobStore(db);
    for (const [i, key] of keys.entries()) expect(reader.get(key)).toBe(JSON.stringify(lists[i]));
    // A list that drops keys at its start (a truncated history) is stored whole.
    const dropped = blobs.putJson(messages.slice(4, 12));
    expect(row(db, dropped).encoding).toBe(6);
    expect(reader.get(dropped)).toBe(JSON.stringify(messages.slice(4, 12)));
  });

  it('writes the edits of a text with a lone surrogate as JSON, which keeps it', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const base = Array.from({ length: 40 }, (_, i) => `- line ${i} of a long enough base text`);
    blobs.put(base.join('\n'));
    const odd = `${base.join('\n')}\n- a lone \ud800 surrogate`;
    const key = blobs.put(odd);
    expect(row(db, key).encoding).toBe(3);
    expect(new BlobStore(db).get(key)).toBe(odd);
  });

  it('deflates short messages and skeletons with the message dictionary', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const message = {
      role: 'assistant',
      content: 'Step 3 of 20: calling music.show_album with album_id=517952.',
      tool_calls: [
        {
          id: 'call_2',
          type: 'function',
          function: { name: 'call_api', arguments: '{"app":"music","api":"show_album"}' },
        },
      ],
    };
    const key = blobs.putJson(message);
    expect(row(db, key).encoding).toBe(9);
    expect(row(db, key).data.length).toBeLessThan(JSON.stringify(message).length / 2);
    const user = { role: 'user', content: 'x'.repeat(1100) + summary(3) };
    const skeleton = blobs.putJson(user);
    const r = row(db, skeleton);
    expect(r.encoding).toBe(8);
    expect(r.data.length).toBeLessThan(32); // a key's 16 bytes and a few for the rest
    const reader = new BlobStore(db);
    expect(reader.getJson(key)).toEqual(message);
    expect(reader.get(skeleton)).toBe(JSON.stringify(user));
  });

  it('deflates a short message with the messages of its kind stored before it', () => {
    const db = database();
    const blobs = new BlobStore(db);
    const message = (i: number) => ({
      role: 'assistant',
      content: `Step ${i} of 40: calling music.show_album with album_id=${517952 + i}.`,
      tool_calls: [
        {
          id: `call_${i}`,
          type: 'function',
          function: {
            name: 'call_api',
            arguments: `{"app":"music","api":"show_album","args":{"access_token":"atk_gN69B-Oa_bck08FC3Qr5h","album_id":${517952 + i}}}`,
          },
        },
      ],
    });
    const keys = Array.from({ length: 40 }, (_, i) => blobs.putJson(message(i)));
    expect(row(db, keys[0]!).encoding).toBe(9); // nothing of its kind before it
    const later = keys.slice(10).map((k) => row(db, k));
    expect(later.every((r) => r.encoding === 11)).toBe(true);
    const alone = row(db, keys[0]!).data.length;
    for (const r of later) expect(r.data.length).toBeLessThan(alone * 0.6);
    // Each names its dictionary, a text stored whole: reading one costs one blob more.
    const dictionary = BlobStore.references(later[0]!.encoding, later[0]!.data);
    expect(dictionary).toHaveLength(1);
    expect([0, 1, 9]).toContain(row(db, dictionary[0]!).encoding);
    const reader = new BlobStore(db);
    for (const [i, key] of keys.entries()) expect(reader.getJson(key)).toEqual(message(i));
  });
});

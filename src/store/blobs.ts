import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import {
  decodeBlob,
  DELTAS,
  dictionaryOf,
  ENCODING,
  encodeBlob,
  encodeSkeleton,
  headerKeys,
  isKeyList,
  quotedKeys,
  withMessageDictionary,
  type BlobCompression,
  type EncodedBlob,
} from './blob-encoding.js';
import { DeltaBases, votingHashes, type DeltaBase, type NewBase } from './delta-bases.js';
import {
  applyDelta,
  copyMore,
  diffTokens,
  DeltaOpsSchema,
  packOps,
  tokenize,
  unpackOps,
  type DeltaOps,
} from './delta.js';
import {
  joinLongStrings,
  skeletonKeys,
  splitLongStrings,
  unpackSkeleton,
} from './json-skeleton.js';
import { KeyLists } from './key-lists.js';
import { ShortTexts } from './short-texts.js';
import { MESSAGE_DICTIONARY } from './message-dictionary.js';

export { BlobCompressionSchema, type BlobCompression } from './blob-encoding.js';

/** Texts at least this long are stored as edits of a similar earlier text when there is one. */
const DELTA_MIN_CHARS = 512;
/** A delta is kept when it copies at least this share of the text from its sources. */
const DELTA_MIN_COPIED = 0.5;
/**
 * Blobs a reader decodes at most to rebuild a text (the texts it copies from, theirs, and so
 * on); a text that could only copy from more is stored whole and starts over.
 */
const MAX_ANCESTORS = 64;
/** Blobs a source after the first may add to those a text is rebuilt from. */
const MAX_EXTRA_ANCESTORS = 12;
/** Texts one delta copies from at most. */
const MAX_SOURCES = 4;
/** A further source is taken when it saves at least this many characters of new text. */
const MIN_SOURCE_GAIN = 64;
/** JSON values at least this long have their strings of at least SKELETON_STRING_CHARS split out. */
const SKELETON_MIN_CHARS = 1024;
const SKELETON_STRING_CHARS = 256;

/** Text of the decoded blobs kept in memory for reads (prompts share most of their messages). */
const READ_CACHE_CHARS = 16 * 1024 * 1024;

/** Keys known to be stored already; past this many the set starts over (it is only a shortcut). */
const KNOWN_KEYS_MAX = 200_000;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The key of a text: the first 128 bits of its SHA-256, in hex. */
export function blobKey(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * The content-addressed texts of a database (`blobs` table): each distinct text is stored once
 * under its key, so a prompt that repeats the history costs a list of keys, not the history.
 * Keys are hex strings to callers and 16-byte BLOBs in the table (schema version 9 on; before
 * that, hex TEXT: a migration that runs before version 9 still finds its blobs).
 */
export class BlobStore {
  private insertStmt: Database.Statement | undefined;
  private existsStmt: Database.Statement | undefined;
  private selectStmt: Database.Statement | undefined;
  private headStmt: Database.Statement | undefined;
  private readonly binary: boolean;
  private readonly known = new Set<string>();
  /**
   * Keys of objects already stored. A prompt repeats the trajectory's message objects step after
   * step; nothing changes a message once it was sent, so its key is computed once.
   */
  private readonly keyOf = new WeakMap<object, string>();
  private readonly cache = new Map<string, string>();
  private cachedChars = 0;
  private readonly bases: DeltaBases;
  private readonly keyLists = new KeyLists(MAX_ANCESTORS);
  private readonly shortTexts = new ShortTexts();

  /** `deltaMemoryChars`: text of the long texts stored last kept in memory to copy from. */
  constructor(
    private readonly db: Database.Database,
    private readonly compression: BlobCompression = 'deflate',
    options: { deltaMemoryChars?: number } = {},
  ) {
    this.bases = new DeltaBases((key) => this.loadBase(key), options.deltaMemoryChars);
    // Asked now: the store is also used while a statement iterates (sweep), when SQLite
    // answers no other query on the connection.
    this.binary = BlobStore.binaryKeys(db);
  }

  /** A key as the table holds it. */
  private k(key: string): string | Buffer {
    return this.binary ? Buffer.from(key, 'hex') : key;
  }

  /** Whether the table holds keys as 16-byte BLOBs (schema version 9 on). */
  static binaryKeys(db: Database.Database): boolean {
    const columns = db.pragma('table_info(blobs)') as { name: string; type: string }[];
    return columns.find((c) => c.name === 'key')?.type.toUpperCase() === 'BLOB';
  }

  /** A key read from the table, as callers see it. */
  static keyText(value: string | Buffer): string {
    return typeof value === 'string' ? value : value.toString('hex');
  }

  // Prepared on first use: a read-only store never prepares the writes.
  private get insert(): Database.Statement {
    return (this.insertStmt ??= this.db.prepare(
      'INSERT OR IGNORE INTO blobs (key, encoding, size, data) VALUES (?, ?, ?, ?)',
    ));
  }

  private get exists(): Database.Statement {
    return (this.existsStmt ??= this.db.prepare('SELECT 1 FROM blobs WHERE key = ?').pluck());
  }

  private get select(): Database.Statement {
    return (this.selectStmt ??= this.db.prepare('SELECT encoding, data FROM blobs WHERE key = ?'));
  }

  /** The start of a blob: enough to name the texts a delta copies from. */
  private get head(): Database.Statement {
    return (this.headStmt ??= this.db.prepare(
      `SELECT encoding, substr(data, 1, ${1 + 16 * MAX_SOURCES}) AS data FROM blobs WHERE key = ?`,
    ));
  }

  /** Stores a text (once) and returns its key. */
  put(text: string): string {
    return this.store(blobKey(text), text);
  }

  /** Stores `JSON.stringify(value)`; reading it back gives the same bytes. */
  putJson(value: unknown): string {
    if (typeof value !== 'object' || value === null) return this.put(JSON.stringify(value));
    const memo = this.keyOf.get(value);
    if (memo !== undefined && this.known.has(memo)) return memo;
    const text = JSON.stringify(value);
    const key = this.store(memo ?? blobKey(text), text, value);
    this.keyOf.set(value, key);
    return key;
  }

  private store(key: string, text: string, value?: object): string {
    if (this.known.has(key)) return key;
    // Look before compressing: most texts of a prompt are stored already.
    if (!this.stored(key)) {
      const { encoding, data } = this.encode(key, text, value);
      this.insert.run(this.k(key), encoding, Buffer.byteLength(text, 'utf8'), data);
    }
    // Inside a transaction the insert may still be rolled back: only remember committed keys.
    if (!this.db.inTransaction) {
      if (this.known.size >= KNOWN_KEYS_MAX) this.known.clear();
      this.known.add(key);
    }
    return key;
  }

  /** Whether the file holds the key (`known` holds only committed keys). */
  private stored(key: string): boolean {
    return this.known.has(key) || this.exists.get(this.k(key)) !== undefined;
  }

  /**
   * How a new text is written: a JSON value's long strings apart, a long text as the edits of
   * similar texts stored before, else whole (compressed when that pays).
   */
  private encode(key: string, text: string, value?: object): EncodedBlob {
    if (this.compression === 'none') return encodeBlob(text, 'none');
    if (isKeyList(value)) return this.keyLists.encode(key, value, (k) => this.stored(k));
    if (value !== undefined && text.length >= SKELETON_MIN_CHARS) {
      const skeleton = splitLongStrings(value, text, SKELETON_STRING_CHARS, (s) => this.put(s));
      if (skeleton !== undefined) return encodeSkeleton(skeleton);
    }
    if (text.length < DELTA_MIN_CHARS) return this.encodeShort(text);
    const tokens = tokenize(text);
    const voting = votingHashes(tokens);
    const delta = this.delta(text, tokens, voting);
    this.bases.add({ key, text, tokens, ancestors: delta?.ancestors ?? NO_ANCESTORS }, voting);
    return delta?.blob ?? encodeBlob(text, this.compression);
  }

  /** A short text deflated with the texts of its kind stored just before it, when it pays. */
  private encodeShort(text: string): EncodedBlob {
    const alone = encodeBlob(text, this.compression);
    if (this.compression !== 'deflate' || alone.encoding === ENCODING.none) return alone;
    const found = this.shortTexts.dictionaryFor(text);
    if (found === undefined) return alone;
    const dictKey = blobKey(found.dictionary);
    if (found.isNew && !this.stored(dictKey)) {
      // Whole, never as edits of other texts: reading a short text costs one blob more at most.
      const { encoding, data } = encodeBlob(found.dictionary, this.compression);
      this.insert.run(this.k(dictKey), encoding, Buffer.byteLength(found.dictionary), data);
    } else if (!this.stored(dictKey)) {
      this.shortTexts.drop(found.dictionary);
      return alone;
    }
    const packed = deflateRawSync(Buffer.from(text, 'utf8'), {
      dictionary: withMessageDictionary(found.dictionary),
    });
    if (packed.length + 16 >= alone.data.length) return alone;
    return {
      encoding: ENCODING.deflateWith,
      data: Buffer.concat([Buffer.from(dictKey, 'hex'), packed]),
    };
  }

  /**
   * The text as copies from the stored texts sharing the most lines with it: first the one
   * sharing most with the whole text, then, while a good share is still new, the one sharing
   * most with what is left (the newest observation quoted in a compressor input is often in
   * another rollout's input of the same task).
   */
  private delta(
    text: string,
    tokens: readonly string[],
    voting: readonly number[],
  ): { blob: EncodedBlob; ancestors: ReadonlySet<string> } | undefined {
    const sources: DeltaBase[] = [];
    const ancestors = new Set<string>();
    const skip = new Set<string>();
    const stored = (k: string) => this.stored(k);
    let ops: DeltaOps = [];
    let copied = 0;
    let offset = 0;
    let wanted = voting;
    while (sources.length < MAX_SOURCES && wanted.length > 0) {
      // The first source may bring a long chain; a further one only a few blobs more.
      const maxNew =
        sources.length === 0
          ? MAX_ANCESTORS
          : Math.min(MAX_EXTRA_ANCESTORS, MAX_ANCESTORS - ancestors.size);
      const base = this.bases.best(wanted, { ancestors, maxNew, skip, stored });
      if (base === undefined) break;
      skip.add(base.key);
      const more =
        sources.length === 0
          ? diffTokens(base.tokens, tokens, base.index, base.at)
          : copyMore(ops, { ...base, offset });
      if (more.copiedChars < MIN_SOURCE_GAIN) continue;
      sources.push(base);
      ancestors.add(base.key);
      for (const a of base.ancestors) ancestors.add(a);
      ops = more.ops;
      copied += more.copiedChars;
      offset += base.text.length;
      const rest = ops.filter((op) => typeof op === 'string').join('');
      if (rest.length < MIN_SOURCE_GAIN) break;
      wanted = votingHashes(tokenize(rest));
    }
    if (sources.length === 0 || copied < text.length * DELTA_MIN_COPIED) return undefined;
    const dictionary = dictionaryOf(sources[0]!.text);
    const keys = sources.map((s) => Buffer.from(s.key, 'hex'));
    // Bytes keep only well-formed text; JSON keeps a lone surrogate of a string as it is.
    const binary = ops.every((op) => typeof op !== 'string' || !LONE_SURROGATE.test(op));
    const packed = deflateRawSync(binary ? packOps(ops) : Buffer.from(JSON.stringify(ops)), {
      dictionary,
    });
    const header = [Buffer.of(sources.length), ...keys];
    const blob: EncodedBlob = binary
      ? { encoding: ENCODING.copies, data: Buffer.concat([...header, packed]) }
      : sources.length === 1
        ? { encoding: ENCODING.delta, data: Buffer.concat([keys[0]!, packed]) }
        : { encoding: ENCODING.sources, data: Buffer.concat([...header, packed]) };
    return { blob, ancestors };
  }

  /** A stored text read back to be copied from again; undefined when the file lacks it. */
  private loadBase(key: string): NewBase | undefined {
    if (!this.stored(key)) return undefined;
    const text = this.get(key);
    return { key, text, tokens: tokenize(text), ancestors: this.ancestorsOf(key) };
  }

  /** Every blob a reader decodes to rebuild the text of `key`. */
  private ancestorsOf(key: string): Set<string> {
    const out = new Set<string>();
    const pending = [key];
    while (pending.length > 0) {
      const row = this.head.get(this.k(pending.pop()!)) as
        { encoding: number; data: string | Buffer } | undefined;
      if (row === undefined || !DELTAS.includes(row.encoding)) continue;
      for (const s of headerKeys(row.encoding, row.data)) {
        if (out.has(s)) continue;
        out.add(s);
        pending.push(s);
      }
    }
    return out;
  }

  /** The keys a stored blob itself refers to (a delta's sources, a skeleton's strings). */
  static references(encoding: number, data: string | Buffer): string[] {
    if (typeof data === 'string') return [];
    if (encoding === ENCODING.skeleton) return skeletonKeys(inflateRawSync(data).toString('utf8'));
    return headerKeys(encoding, data);
  }

  /** The encodings whose blobs refer to other blobs. */
  static readonly REFERRING_ENCODINGS: readonly number[] = [
    ENCODING.delta,
    ENCODING.skeleton,
    ENCODING.sources,
    ENCODING.moreKeys,
    ENCODING.packedSkeleton,
    ENCODING.copies,
    ENCODING.deflateWith,
  ];

  /** The text of a key; throws when the database lacks it (a damaged or hand-edited file). */
  get(key: string): string {
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      // Most recently used last, so eviction drops the oldest.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const row = this.select.get(this.k(key)) as
      { encoding: number; data: string | Buffer } | undefined;
    if (!row) throw new Error(`blob ${key} is missing from the database; the file is damaged`);
    const text = this.decode(row.encoding, row.data);
    this.remember(key, text);
    return text;
  }

  private decode(encoding: number, data: string | Buffer): string {
    if (typeof data === 'string') return data;
    if (DELTAS.includes(encoding)) {
      const keys = headerKeys(encoding, data);
      const texts = keys.map((k) => this.get(k));
      const start = encoding === ENCODING.delta ? 16 : 1 + 16 * keys.length;
      const body = inflateRawSync(data.subarray(start), { dictionary: dictionaryOf(texts[0]!) });
      const ops =
        encoding === ENCODING.copies
          ? unpackOps(body)
          : DeltaOpsSchema.parse(JSON.parse(body.toString('utf8')));
      return applyDelta(texts.join(''), ops);
    }
    if (encoding === ENCODING.skeleton) {
      return joinLongStrings(inflateRawSync(data).toString('utf8'), (k) => this.get(k));
    }
    if (encoding === ENCODING.packedSkeleton) {
      const keys = headerKeys(encoding, data);
      const template = inflateRawSync(data.subarray(1 + 16 * keys.length), {
        dictionary: MESSAGE_DICTIONARY,
      });
      return joinLongStrings(unpackSkeleton(template.toString('utf8'), keys), (k) => this.get(k));
    }
    if (encoding === ENCODING.deflateWith) {
      const dictionary = this.get(data.subarray(0, 16).toString('hex'));
      const text = inflateRawSync(data.subarray(16), {
        dictionary: withMessageDictionary(dictionary),
      });
      return text.toString('utf8');
    }
    if (encoding === ENCODING.moreKeys) {
      const base = this.get(data.subarray(0, 16).toString('hex'));
      return `${base.slice(0, -1)},${quotedKeys(data.subarray(16))}]`;
    }
    return decodeBlob(encoding, data);
  }

  getJson(key: string): unknown {
    return JSON.parse(this.get(key));
  }

  /** Deletes blobs (in one transaction) and forgets them. */
  remove(keys: readonly string[]): void {
    const del = this.db.prepare('DELETE FROM blobs WHERE key = ?');
    this.db
      .transaction(() => {
        for (const k of keys) del.run(this.k(k));
      })
      .immediate();
    this.forget(keys);
  }

  /** Drops deleted keys from what this process believes is stored. */
  forget(keys: readonly string[]): void {
    for (const k of keys) {
      this.known.delete(k);
      const cached = this.cache.get(k);
      if (cached !== undefined) this.cachedChars -= cached.length;
      this.cache.delete(k);
    }
    this.bases.forget(new Set(keys));
  }

  private remember(key: string, text: string): void {
    if (text.length > READ_CACHE_CHARS / 4) return;
    this.cache.set(key, text);
    this.cachedChars += text.length;
    for (const [k, v] of this.cache) {
      if (this.cachedChars <= READ_CACHE_CHARS) break;
      this.cache.delete(k);
      this.cachedChars -= v.length;
    }
  }
}

const NO_ANCESTORS: ReadonlySet<string> = new Set();

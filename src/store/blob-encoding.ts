import {
  brotliCompressSync,
  brotliDecompressSync,
  constants as zlib,
  deflateRawSync,
  inflateRawSync,
} from 'node:zlib';
import { z } from 'zod';
import { packSkeleton } from './json-skeleton.js';
import { MESSAGE_DICTIONARY } from './message-dictionary.js';

/**
 * How the `blobs` table writes a text: the encodings and those of them that need no other blob
 * to be read. The ones built on other blobs are read by BlobStore (blobs.ts).
 */

/**
 * How new blobs are compressed. Each blob records its own encoding, so a database can mix them
 * and any setting reads every file.
 */
export const BlobCompressionSchema = z.enum(['none', 'deflate', 'brotli']);
export type BlobCompression = z.infer<typeof BlobCompressionSchema>;

/**
 * Stored in `blobs.encoding`; never renumber (old files keep their numbers). `delta`: the 16-byte
 * key of a base blob, then the raw-deflated JSON of the edits that make the text of it (the
 * base's last 32 KiB as the deflate dictionary). `skeleton`: a JSON text with its long strings
 * stored as blobs of their own (json-skeleton.ts), raw-deflated. `sources`: a delta copying from
 * several texts: their count (one byte) and 16-byte keys, then the edits as for `delta`, whose
 * copies count characters of the sources joined in that order (the first one's end is the
 * dictionary). `keys`: a JSON list of blob keys (a prompt, a step's observations) as the keys'
 * 16 bytes each. `moreKeys`: such a list as the key of a list it starts with (the prompt of the
 * step before) and the 16 bytes of each key it adds. `packedSkeleton`: a skeleton as the count
 * (one byte) and 16-byte keys of its strings, then its template (json-skeleton.ts packSkeleton)
 * raw-deflated with MESSAGE_DICTIONARY. `deflateDict`: a short text raw-deflated with
 * MESSAGE_DICTIONARY. `copies`: as `sources`, with the edits as bytes (delta.ts packOps) instead
 * of JSON. `deflateWith`: the 16-byte key of a dictionary text (short-texts.ts), then the text
 * raw-deflated with MESSAGE_DICTIONARY and that text after it as the dictionary.
 */
export const ENCODING = {
  none: 0,
  deflate: 1,
  brotli: 2,
  delta: 3,
  skeleton: 4,
  sources: 5,
  keys: 6,
  moreKeys: 7,
  packedSkeleton: 8,
  deflateDict: 9,
  copies: 10,
  deflateWith: 11,
} as const;

/** Deflate looks back 32 KiB: the dictionary of a delta is the end of its base. */
const DICTIONARY_BYTES = 32 * 1024;
/** Texts shorter than this are deflated with MESSAGE_DICTIONARY (longer ones gain nothing). */
const DICTIONARY_MAX_CHARS = 4096;

/** Texts shorter than this are stored as they are: compressing them saves nothing. */
const MIN_COMPRESS_BYTES = 96;

/**
 * Brotli quality 5: on stored trajectories it is within a few per cent of quality 11 in size
 * and runs an order of magnitude faster (writes happen on the event loop).
 */
const BROTLI_QUALITY = 5;

const HEX_KEY = /^[0-9a-f]{32}$/;

export type EncodedBlob = { encoding: number; data: string | Buffer };

/** Compresses a text when that makes it smaller; short texts stay plain (readable in sqlite3). */
export function encodeBlob(text: string, compression: BlobCompression): EncodedBlob {
  if (compression === 'none' || text.length < MIN_COMPRESS_BYTES) {
    return { encoding: ENCODING.none, data: text };
  }
  const raw = Buffer.from(text, 'utf8');
  if (compression === 'deflate' && text.length < DICTIONARY_MAX_CHARS) {
    const packed = deflateRawSync(raw, { dictionary: MESSAGE_DICTIONARY });
    if (packed.length >= raw.length) return { encoding: ENCODING.none, data: text };
    return { encoding: ENCODING.deflateDict, data: packed };
  }
  const packed =
    compression === 'brotli'
      ? brotliCompressSync(raw, {
          params: {
            [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
            [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
            [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length,
          },
        })
      : deflateRawSync(raw);
  if (packed.length >= raw.length) return { encoding: ENCODING.none, data: text };
  return { encoding: ENCODING[compression], data: packed };
}

/** Decodes a blob that stands alone (not a delta or a skeleton: those need the store). */
export function decodeBlob(encoding: number, data: string | Buffer): string {
  if (typeof data === 'string') return data;
  switch (encoding) {
    case ENCODING.none:
      return data.toString('utf8');
    case ENCODING.deflate:
      return inflateRawSync(data).toString('utf8');
    case ENCODING.brotli:
      return brotliDecompressSync(data).toString('utf8');
    case ENCODING.keys:
      return `[${quotedKeys(data)}]`;
    case ENCODING.deflateDict:
      return inflateRawSync(data, { dictionary: MESSAGE_DICTIONARY }).toString('utf8');
    default:
      throw new Error(`blob encoding ${encoding} is unknown to this acon; upgrade acon`);
  }
}

/** Encodings whose blobs are edits of other texts (a header of source keys). */
export const DELTAS: readonly number[] = [ENCODING.delta, ENCODING.sources, ENCODING.copies];

/** A skeleton as its keys' bytes and its template (or as JSON text when it has too many). */
export function encodeSkeleton(skeleton: string): EncodedBlob {
  const packed = packSkeleton(skeleton);
  if (packed === undefined || packed.keys.length > 255) {
    return { encoding: ENCODING.skeleton, data: deflateRawSync(Buffer.from(skeleton)) };
  }
  const template = deflateRawSync(Buffer.from(packed.template), { dictionary: MESSAGE_DICTIONARY });
  const keys = packed.keys.map((k) => Buffer.from(k, 'hex'));
  return {
    encoding: ENCODING.packedSkeleton,
    data: Buffer.concat([Buffer.of(keys.length), ...keys, template]),
  };
}

/** The keys a blob names in its header: a delta's sources, a packed skeleton's strings. */
export function headerKeys(encoding: number, data: string | Buffer): string[] {
  if (typeof data === 'string') return [];
  const single: readonly number[] = [ENCODING.delta, ENCODING.moreKeys, ENCODING.deflateWith];
  if (single.includes(encoding)) {
    return [data.subarray(0, 16).toString('hex')];
  }
  const counted: readonly number[] = [ENCODING.sources, ENCODING.packedSkeleton, ENCODING.copies];
  if (!counted.includes(encoding)) return [];
  const n = data[0]!;
  return Array.from({ length: n }, (_, i) =>
    data.subarray(1 + 16 * i, 17 + 16 * i).toString('hex'),
  );
}

/** Whether a value is a non-empty list of blob keys (its JSON is then rebuilt from the bytes). */
export function isKeyList(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((k) => typeof k === 'string' && HEX_KEY.test(k))
  );
}

/** Keys given as 16 bytes each, as they are written in a JSON list: "k1","k2". */
export function quotedKeys(bytes: Buffer): string {
  const out: string[] = [];
  for (let i = 0; i + 16 <= bytes.length; i += 16) {
    out.push(`"${bytes.subarray(i, i + 16).toString('hex')}"`);
  }
  return out.join(',');
}

/** MESSAGE_DICTIONARY followed by a dictionary text: deflate's dictionary of `deflateWith`. */
export function withMessageDictionary(text: string): Buffer {
  const bytes = Buffer.concat([MESSAGE_DICTIONARY, Buffer.from(text, 'utf8')]);
  return bytes.length <= DICTIONARY_BYTES ? bytes : bytes.subarray(bytes.length - DICTIONARY_BYTES);
}

/** The end of a base text, as bytes, for deflate's dictionary. */
export function dictionaryOf(base: string): Buffer {
  const bytes = Buffer.from(base, 'utf8');
  return bytes.length <= DICTIONARY_BYTES ? bytes : bytes.subarray(bytes.length - DICTIONARY_BYTES);
}

import { brotliDecompressSync, inflateRawSync } from 'node:zlib';
import type Database from 'better-sqlite3';

/**
 * The reading side of the store before v2 (schema 12, commit e8cc1f0), kept only so that
 * `acon runs upgrade` can convert such a file: texts stored once each in a `blobs` table under
 * the first 16 bytes of their SHA-256, in one of twelve encodings, many of them edits of, or
 * lists of, other blobs. Nothing here writes.
 */

/** The preset deflate dictionary of encodings 8, 9 and 11, byte for byte as it was written. */
const MESSAGE_DICTIONARY = Buffer.from(
  [
    '{"role":"system","content":"You are{"role":"tool","tool_call_id":"ca',
    'll_","name":""error":""message":"\\n  \\"\\",\\n":null,"":true,""',
    ':false,"\\":\\"\\",\\" with calling \\"access_token\\":\\"\\"args\\":{{',
    '\\"app\\":\\"\\"api\\":\\"","arguments":"{\\"","type":"function",',
    '"function":{"name":"{"role":"assistant","content":null,"tool_calls":[',
    '{"id":"call_","tool_calls":[{"id":"call_{"role":"assistant","content',
    '":""}}]}{"role":"user","content":"{"role":"tool","tool_call_id":"',
    'call_","content":""\\u0000"}',
  ].join(''),
  'utf8',
);

/** Deflate's 32 KiB window: the dictionary of a delta is the end of its sources. */
const lastWindow = (b: Buffer) => (b.length <= 32768 ? b : b.subarray(b.length - 32768));
const dictionaryOf = (text: string) => lastWindow(Buffer.from(text, 'utf8'));
const inflate = (data: Buffer, dictionary?: Buffer) =>
  inflateRawSync(data, dictionary ? { dictionary } : {}).toString('utf8');
const keyAt = (data: Buffer, at: number) => data.subarray(at, at + 16).toString('hex');
const counted = (data: Buffer) =>
  Array.from({ length: data[0]! }, (_, i) => keyAt(data, 1 + 16 * i));
const quotedKeys = (bytes: Buffer) =>
  Array.from({ length: bytes.length / 16 }, (_, i) => `"${keyAt(bytes, 16 * i)}"`).join(',');

type Op = string | [number, number];

/** Edits as bytes (encoding 10): varints of the operation list, then the new texts. */
function unpackOps(bytes: Buffer): Op[] {
  let at = 0;
  const read = (): number => {
    let v = 0;
    for (let scale = 1; ; scale *= 128) {
      const b = bytes[at++]!;
      v += (b & 127) * scale;
      if (b < 128) return v;
    }
  };
  const listEnd = read() + at;
  let text = listEnd;
  let end = 0;
  const ops: Op[] = [];
  while (at < listEnd) {
    const v = read();
    if (v % 2 === 1) {
      ops.push(bytes.subarray(text, (text += (v - 1) / 2)).toString('utf8'));
      continue;
    }
    const z = read();
    const start = end + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
    ops.push([start, v / 2]);
    end = start + v / 2;
  }
  return ops;
}

const applyOps = (base: string, ops: Op[]) =>
  ops.map((op) => (typeof op === 'string' ? op : base.slice(op[0], op[0] + op[1]))).join('');

/** A JSON text whose long strings are "\u0000" + the key of a blob holding them. */
const joinStrings = (skeleton: string, get: (k: string) => string) =>
  JSON.stringify(
    JSON.parse(skeleton, (_k, v: unknown) =>
      typeof v === 'string' && v.startsWith('\u0000') ? get(v.slice(1)) : v,
    ),
  );

const unpackSkeleton = (template: string, keys: string[]) => {
  let i = 0;
  return JSON.stringify(
    JSON.parse(template, (_k, v: unknown) => (v === '\u0000' ? '\u0000' + keys[i++]! : v)),
  );
};

/** The texts of a schema-12 file, decoded through a bounded cache (prompts share messages). */
export class LegacyBlobs {
  private readonly select: Database.Statement;
  private readonly cache = new Map<string, string>();
  private cachedChars = 0;

  constructor(db: Database.Database) {
    this.select = db.prepare('SELECT encoding, data FROM blobs WHERE key = ?');
  }

  get(key: string): string {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const row = this.select.get(Buffer.from(key, 'hex')) as
      { encoding: number; data: Buffer | string } | undefined;
    if (!row) throw new Error(`blob ${key} is missing from the database; the file is damaged`);
    const text = typeof row.data === 'string' ? row.data : this.decode(row.encoding, row.data);
    this.cache.set(key, text);
    this.cachedChars += text.length;
    if (this.cachedChars > 64 * 1024 * 1024) {
      this.cache.clear();
      this.cachedChars = 0;
    }
    return text;
  }

  json(key: string): unknown {
    return JSON.parse(this.get(key));
  }

  private decode(encoding: number, data: Buffer): string {
    switch (encoding) {
      case 0:
        return data.toString('utf8');
      case 1:
        return inflate(data);
      case 2:
        return brotliDecompressSync(data).toString('utf8');
      case 3: {
        const base = this.get(keyAt(data, 0));
        return applyOps(base, JSON.parse(inflate(data.subarray(16), dictionaryOf(base))) as Op[]);
      }
      case 4:
        return joinStrings(inflate(data), (k) => this.get(k));
      case 5:
      case 10: {
        const keys = counted(data);
        const texts = keys.map((k) => this.get(k));
        const body = inflateRawSync(data.subarray(1 + 16 * keys.length), {
          dictionary: dictionaryOf(texts[0]!),
        });
        const ops = encoding === 10 ? unpackOps(body) : (JSON.parse(body.toString('utf8')) as Op[]);
        return applyOps(texts.join(''), ops);
      }
      case 6:
        return `[${quotedKeys(data)}]`;
      case 7:
        return `${this.get(keyAt(data, 0)).slice(0, -1)},${quotedKeys(data.subarray(16))}]`;
      case 8: {
        const keys = counted(data);
        const template = inflate(data.subarray(1 + 16 * keys.length), MESSAGE_DICTIONARY);
        return joinStrings(unpackSkeleton(template, keys), (k) => this.get(k));
      }
      case 9:
        return inflate(data, MESSAGE_DICTIONARY);
      case 11: {
        const dictionary = Buffer.from(this.get(keyAt(data, 0)), 'utf8');
        return inflate(
          data.subarray(16),
          lastWindow(Buffer.concat([MESSAGE_DICTIONARY, dictionary])),
        );
      }
      default:
        throw new Error(`blob encoding ${encoding} is unknown to this acon`);
    }
  }

  /** A message list: a blob holding the JSON list of its messages' keys. */
  messages(listKey: string): unknown[] {
    return (this.json(listKey) as string[]).map((k) => this.json(k));
  }

  /** A call's request: its message list, and the rest with the tool list by key. */
  request(messagesKey: string, restKey: string): Record<string, unknown> {
    const rest = this.json(restKey) as Record<string, unknown> & { tools?: string };
    return {
      ...rest,
      messages: this.messages(messagesKey),
      ...(rest.tools === undefined ? {} : { tools: this.json(rest.tools) }),
    };
  }

  /** A response: its message by key, the rest inline, or null for `{message, usage}`. */
  response(messageKey: string, rest: string | null, usage: Usage): Record<string, unknown> {
    const message = this.json(messageKey);
    if (rest !== null) return { ...(JSON.parse(rest) as object), message };
    return {
      message,
      usage: {
        promptTokens: usage.prompt_tokens,
        cachedPromptTokens: usage.cached_tokens,
        completionTokens: usage.completion_tokens,
      },
    };
  }

  /** A trajectory: a turn written 0 is the step at its position. */
  trajectory(
    ref: string,
    steps: { assistant: string; observations: string }[],
  ): { system: string; task: string; turns: { assistant: unknown; observations: unknown }[] } {
    const t = JSON.parse(ref) as {
      system: string;
      task: string;
      turns: (0 | { assistant: string; observations: string })[];
    };
    return {
      ...t,
      system: this.get(t.system),
      task: this.get(t.task),
      turns: t.turns.map((turn, i) => {
        const keys = turn === 0 ? steps[i]! : turn;
        return {
          ...(turn === 0 ? {} : turn),
          assistant: this.json(keys.assistant),
          observations: this.messages(keys.observations),
        };
      }),
    };
  }
}

export type Usage = { prompt_tokens: number; cached_tokens: number; completion_tokens: number };

/** A blob key column as hex (binary in schema 12; a row written by hand may hold text). */
export function hex(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('hex') : String(value);
}

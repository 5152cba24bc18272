import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';

/**
 * A document is the JSON of its sections, one a line (JSON never holds a raw newline), brotli
 * compressed: a reader splits the lines and parses only the sections it needs. A rollout's
 * document holds, in this order: trajectory, steps (without prompts), prompts (one message list
 * a step), compression events, calls. A run's document holds only calls (the other lines are
 * `null`). A call is `{id, requestHash, taskId, createdAt, request, response}`; an agent call
 * whose messages are its step's prompt has the step's index in place of its messages.
 */
export const SECTIONS = ['trajectory', 'steps', 'prompts', 'events', 'calls'] as const;
export type Section = (typeof SECTIONS)[number];

/** A call's payload as a document or the journal holds it. */
export type CallPayload = {
  id: number;
  requestHash: string;
  taskId: string | null;
  createdAt: number;
  request: Record<string, unknown> & { messages: unknown };
  response: unknown;
};

/**
 * Brotli quality 5: on the README optimize's database it is 19.3 MiB against 18.1 MiB at
 * quality 9, for 3.6× less CPU (issue #30). A 16 MiB window reaches back over a long rollout's
 * earlier prompts, which the later ones repeat.
 */
const QUALITY = 5;
const WINDOW_BITS = 24;
/**
 * A journal row lives until its rollout ends and is written on every call: the fastest quality
 * and the default window (a larger one costs more to set up than a call's text is long).
 */
export const JOURNAL = { quality: 1, windowBits: 22 };

export function compress(
  text: string,
  how = { quality: QUALITY, windowBits: WINDOW_BITS },
): Buffer {
  const raw = Buffer.from(text, 'utf8');
  return brotliCompressSync(raw, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: how.quality,
      [zlib.BROTLI_PARAM_LGWIN]: how.windowBits,
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
}

export function decompress(data: Buffer): string {
  return brotliDecompressSync(data).toString('utf8');
}

/** The text of a document: each section's JSON on its own line. */
export function documentText(sections: Partial<Record<Section, string>>): string {
  return SECTIONS.map((s) => sections[s] ?? 'null').join('\n');
}

/** A step as a rollout's document is given it: its prompt goes to the prompts line. */
export type DocumentStep = { prompt: unknown; callId: number | null };

/**
 * The text of a rollout's document. Every agent request is its step's prompt, so an agent
 * call whose messages are that prompt (checked) keeps the step's index in their place.
 */
export function rolloutDocument(
  r: { trajectory: unknown; steps: readonly DocumentStep[]; events: unknown },
  calls: readonly CallPayload[],
): string {
  const prompts = r.steps.map((s) => JSON.stringify(s.prompt));
  const stepOf = new Map(r.steps.map((s, i) => [s.callId, i]));
  const stored = calls.map((call) => {
    const i = stepOf.get(call.id);
    const sent = call.request.messages;
    if (i === undefined || (sent !== r.steps[i]!.prompt && JSON.stringify(sent) !== prompts[i]))
      return call;
    return { ...call, request: { ...call.request, messages: i } };
  });
  return documentText({
    trajectory: JSON.stringify(r.trajectory),
    steps: JSON.stringify(r.steps.map(({ prompt: _, ...step }) => step)),
    prompts: `[${prompts.join(',')}]`,
    events: JSON.stringify(r.events),
    calls: JSON.stringify(stored),
  });
}

/** A decoded document; sections are parsed when first asked for. */
export class Doc {
  private readonly lines: string[];
  private readonly parsed = new Map<Section, unknown>();
  private byId: Map<number, CallPayload> | undefined;
  readonly chars: number;

  constructor(text: string) {
    this.lines = text.split('\n');
    this.chars = text.length;
    if (this.lines.length !== SECTIONS.length) {
      throw new Error(
        `a stored document has ${this.lines.length} sections, not ${SECTIONS.length}`,
      );
    }
  }

  /** The section's JSON as written (`null` when the document has none). */
  text(section: Section): string {
    return this.lines[SECTIONS.indexOf(section)]!;
  }

  get(section: Section): unknown {
    if (!this.parsed.has(section)) this.parsed.set(section, JSON.parse(this.text(section)));
    return this.parsed.get(section);
  }

  call(id: number): CallPayload | undefined {
    this.byId ??= new Map(((this.get('calls') ?? []) as CallPayload[]).map((c) => [c.id, c]));
    return this.byId.get(id);
  }

  /** A call's request as written: an agent call's messages are its step's prompt. */
  requestJson(call: CallPayload): string {
    const { messages } = call.request;
    if (typeof messages !== 'number') return JSON.stringify(call.request);
    const prompts = this.get('prompts') as unknown[];
    return JSON.stringify({ ...call.request, messages: prompts[messages] });
  }
}

/** Text of recently read documents kept decoded (a cache hit often reads the same rollout). */
const CACHE_CHARS = 16 * 1024 * 1024;

/** The documents read last, by number, least recently used first. */
export class DocCache {
  private readonly docs = new Map<number, Doc>();
  private chars = 0;

  constructor(private readonly load: (n: number) => Buffer) {}

  get(n: number): Doc {
    let doc = this.docs.get(n);
    if (doc) this.docs.delete(n);
    else {
      doc = new Doc(decompress(this.load(n)));
      this.chars += doc.chars;
    }
    this.docs.set(n, doc);
    for (const [k, d] of this.docs) {
      if (this.chars <= CACHE_CHARS || k === n) break;
      this.docs.delete(k);
      this.chars -= d.chars;
    }
    return doc;
  }

  clear(): void {
    this.docs.clear();
    this.chars = 0;
  }
}

import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';

/**
 * A document is the JSON of its sections, one a line (JSON never holds a raw newline), brotli
 * compressed; its first line names the sections that follow. A rollout's document holds the
 * trajectory's system prompt and task (`head`), its steps without prompts, compression events,
 * `values`, `turns`, `prompts` and `calls`. Every chat message of a prompt or of a call's request,
 * and every tool list, is written once in `values` and referred to by its index there: a raw
 * agent's 30th prompt repeats 29 earlier turns, which cost brotli few bytes but a reader 1.4 MB
 * of text to decode on a 30-step rollout (issue #30). A turn equal to its step's answer and
 * observations is `0`. A run's document holds only `values` and `calls`. A call is
 * `{id, requestHash, taskId, createdAt, request, response}`.
 */
export const SECTIONS = ['head', 'steps', 'events', 'values', 'turns', 'prompts', 'calls'] as const;
type Section = (typeof SECTIONS)[number] | 'trajectory';
/**
 * The sections of a document written before its first line named them (schema 1 until
 * 2026-11-24): the whole trajectory first, prompts as message lists, and an agent call whose
 * messages were its step's prompt has the step's index in their place.
 */
const UNNAMED: readonly Section[] = ['trajectory', 'steps', 'prompts', 'events', 'calls'];

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

/** Values written once in a document, by the index they are referred to by. */
class Values {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();

  add(value: unknown): number {
    const json = JSON.stringify(value);
    let i = this.index.get(json);
    if (i === undefined) {
      i = this.list.push(json) - 1;
      this.index.set(json, i);
    }
    return i;
  }

  /** A call as stored: its request's messages and tools by index (the keys keep their order). */
  call(c: CallPayload): CallPayload {
    const { messages, tools } = c.request;
    const request = { ...c.request };
    if (Array.isArray(messages)) request.messages = messages.map((m) => this.add(m));
    if (Array.isArray(tools)) request.tools = this.add(tools);
    return { ...c, request };
  }
}

/** The text of a run's document: calls made outside rollouts. */
export function callsDocument(calls: readonly CallPayload[]): string {
  const values = new Values();
  const stored = JSON.stringify(calls.map((c) => values.call(c)));
  return documentText({ values: `[${values.list.join(',')}]`, calls: stored });
}

/** The text of a document: the names of the given sections, then each one's JSON on its own line. */
function documentText(sections: Partial<Record<Section, string>>): string {
  const names = SECTIONS.filter((s) => sections[s] !== undefined);
  return [JSON.stringify(names), ...names.map((s) => sections[s])].join('\n');
}

/** A step as a rollout's document is given it: its prompt goes to the prompts line. */
export type DocumentStep = { prompt: unknown[]; assistant: unknown; observations: unknown };
type Turn = { assistant: unknown; observations: unknown };

/** The text of a rollout's document. */
export function rolloutDocument(
  r: {
    trajectory: { system: string; task: string; turns: readonly Turn[] };
    steps: readonly DocumentStep[];
    events: unknown;
  },
  calls: readonly CallPayload[],
): string {
  const values = new Values();
  const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);
  const turns = r.trajectory.turns.map((t, i) => {
    const step = r.steps[i];
    const plain =
      step && same(t.assistant, step.assistant) && same(t.observations, step.observations);
    return plain ? 0 : t;
  });
  const prompts = r.steps.map((s) => s.prompt.map((m) => values.add(m)));
  const stored = calls.map((c) => values.call(c));
  const { system, task } = r.trajectory;
  return documentText({
    head: JSON.stringify({ system, task }),
    steps: JSON.stringify(r.steps.map(({ prompt: _, ...step }) => step)),
    events: JSON.stringify(r.events),
    values: `[${values.list.join(',')}]`,
    turns: JSON.stringify(turns),
    prompts: JSON.stringify(prompts),
    calls: JSON.stringify(stored),
  });
}

/** A decoded document; sections are parsed when first asked for. */
export class Doc {
  private readonly lines: string[];
  private readonly names: readonly Section[];
  private readonly parsed = new Map<Section, unknown>();
  private byId: Map<number, CallPayload> | undefined;
  readonly chars: number;

  constructor(text: string) {
    this.chars = text.length;
    this.lines = text.split('\n');
    this.names = this.lines[0]!.startsWith('[')
      ? (JSON.parse(this.lines.shift()!) as Section[])
      : UNNAMED;
    if (this.lines.length !== this.names.length) {
      throw new Error(
        `a stored document has ${this.lines.length} sections, not ${this.names.length}`,
      );
    }
  }

  /** A section's value; null when the document has none. */
  get(section: Section): unknown {
    if (!this.parsed.has(section)) {
      const i = this.names.indexOf(section);
      this.parsed.set(section, i < 0 ? null : JSON.parse(this.lines[i]!));
    }
    return this.parsed.get(section);
  }

  private value(i: number): unknown {
    return (this.get('values') as unknown[])[i];
  }

  /** The trajectory's system prompt and task. */
  head(): { system: string; task: string } {
    const { system, task } = (this.get('head') ?? this.get('trajectory')) as Record<string, string>;
    return { system: system!, task: task! };
  }

  trajectory(): unknown {
    if (this.names === UNNAMED) return this.get('trajectory');
    const steps = this.get('steps') as Turn[];
    const turns = (this.get('turns') as (0 | Turn)[]).map((t, i) =>
      t === 0 ? { assistant: steps[i]!.assistant, observations: steps[i]!.observations } : t,
    );
    return { ...this.head(), turns };
  }

  /** The messages sent to the agent at each step. */
  prompts(): unknown[][] {
    const prompts = this.get('prompts') as unknown[][];
    if (this.names === UNNAMED) return prompts;
    return prompts.map((p) => p.map((i) => this.value(i as number)));
  }

  call(id: number): CallPayload | undefined {
    this.byId ??= new Map(((this.get('calls') ?? []) as CallPayload[]).map((c) => [c.id, c]));
    return this.byId.get(id);
  }

  /** A call's request as it was recorded, in JSON. */
  requestJson(call: CallPayload): string {
    const { messages, tools } = call.request;
    const request = { ...call.request };
    if (typeof messages === 'number') request.messages = this.prompts()[messages];
    else if (this.names !== UNNAMED && Array.isArray(messages)) {
      request.messages = messages.map((i) => this.value(i as number));
      if (typeof tools === 'number') request.tools = this.value(tools);
    }
    return JSON.stringify(request);
  }
}

/**
 * Documents kept decoded (a cache hit often reads the same rollout): at most this many, and
 * this much text. A decoded document's parsed sections take several times its text, so the
 * count bounds memory for the export, which reads one rollout after another (issue #30).
 */
const CACHE_DOCS = 8;
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
      if ((this.chars <= CACHE_CHARS && this.docs.size <= CACHE_DOCS) || k === n) break;
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

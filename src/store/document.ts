import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';

/**
 * A document: a first line naming its sections, then each section's JSON on a line of its own,
 * brotli-compressed. A rollout's has `head` (system prompt, task), `steps` (without prompts),
 * `events`, `values`, `turns`, `prompts`, `requestValues` and `calls`; a run's `values` and `calls`.
 *
 * Every message and tool list is written once and referred to by index: a raw agent's 30th prompt
 * repeats 29 turns, cheap for brotli but 1.4 MB of text for a reader to decode (issue #30). The
 * steps' messages come first (`values`), so a trajectory's reader never parses the compressors'
 * prompts (`requestValues`). A turn equal to its step's answer and observations is `0`.
 * Schema 1 and 2 held some of these as objects; a reader takes either.
 */
const SECTIONS = [
  'head',
  'steps',
  'events',
  'values',
  'turns',
  'prompts',
  'requestValues',
  'calls',
] as const;
type Section = (typeof SECTIONS)[number] | 'trajectory';
/** The sections of a schema-1 document, whose first line did not name them. */
const UNNAMED: readonly Section[] = ['trajectory', 'steps', 'prompts', 'events', 'calls'];

/** A call's payload: what neither its `calls` row nor its rollout's steps hold. */
export type CallPayload = {
  id: number;
  taskId: string | null;
  createdAt: number;
  request: Record<string, unknown> & { messages: unknown };
  response: unknown;
};

/**
 * Quality 5: 19.3 MiB against quality 9's 18.1 on the README optimize, for 3.6× less CPU. The
 * window (2^w − 16 bytes) just holds the text, at most brotli's 16 MiB: a larger one finds no more
 * matches but costs time to set up, 18% of compressing the README optimize's documents (#28).
 */
export function compress(text: string | Buffer): Buffer {
  const raw = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const window = Math.min(24, Math.max(10, Math.ceil(Math.log2(raw.length + 16))));
  return brotliCompressSync(raw, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: 5,
      [zlib.BROTLI_PARAM_LGWIN]: window,
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
}

export function decompress(data: Buffer): string {
  return brotliDecompressSync(data).toString('utf8');
}

/** The JSON of a message, once per object: the agent sends the same objects at every step. */
const texts = new WeakMap<object, string>();
function jsonOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  let text = texts.get(value);
  if (text === undefined) texts.set(value, (text = JSON.stringify(value)));
  return text;
}

/** Values written once, by the index they are referred to by. */
export class Values {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  /** The last message list given to `refs`, and its indexes. */
  private last: { list: readonly unknown[]; refs: number[] } = { list: [], refs: [] };

  add(value: unknown): number {
    const json = jsonOf(value);
    let i = this.index.get(json);
    if (i === undefined) {
      i = this.list.push(json) - 1;
      this.index.set(json, i);
    }
    return i;
  }

  /**
   * The indexes of a list of messages. A prompt repeats the previous one's objects at the same
   * places, which take their index without a look-up (a fifth of recordCall's time, issue #28).
   */
  refs(list: readonly unknown[]): number[] {
    const { list: before, refs: known } = this.last;
    const refs = list.map((m, i) =>
      i < before.length && m === before[i] ? known[i]! : this.add(m),
    );
    this.last = { list, refs };
    return refs;
  }

  /** Forgets the values from `length` on (their write was rolled back). */
  truncate(length: number): void {
    for (const json of this.list.splice(length)) this.index.delete(json);
    this.last = { list: [], refs: [] };
  }

  /** A call as stored: its request's messages, tools and response message by index. */
  call({ id, taskId, createdAt, request, response }: CallPayload): CallPayload {
    const stored = { ...request };
    if (Array.isArray(request.messages)) stored.messages = this.refs(request.messages);
    if (Array.isArray(request.tools)) stored.tools = this.add(request.tools);
    const r = response as { message?: unknown } | null;
    const answer = r?.message === undefined ? r : { ...r, message: this.add(r.message) };
    return { id, taskId, createdAt, request: stored, response: answer };
  }

  /** The JSON array of the values from `from` to `to`, as pieces: the values' own strings among them. */
  jsonPieces(from = 0, to = this.list.length): string[] {
    const pieces = ['['];
    for (let i = from; i < to; i++) pieces.push(i === from ? '' : ',', this.list[i]!);
    pieces.push(']');
    return pieces;
  }
}

/** A call read back: what `Values.call` replaced by indexes, from `value`. */
export function expandCall(
  c: CallPayload,
  value: (i: number) => unknown,
  prompt: (step: number) => unknown[] = () => [],
): CallPayload {
  const { messages, tools } = c.request;
  const request = { ...c.request };
  // Schema 1 wrote the step's index for an agent call whose messages were its prompt.
  if (typeof messages === 'number') request.messages = prompt(messages);
  else if (Array.isArray(messages)) request.messages = messages.map((m) => ref(m, value));
  if (tools !== undefined) request.tools = ref(tools, value);
  const r = c.response as { message?: unknown } | null;
  const response = r?.message === undefined ? r : { ...r, message: ref(r.message, value) };
  const { id, taskId, createdAt } = c;
  return { id, taskId, createdAt, request, response };
}

const ref = (v: unknown, value: (i: number) => unknown) => (typeof v === 'number' ? value(v) : v);

/** A document's UTF-8 bytes, written piece by piece: joined first, a long rollout is a few MB. */
function documentBytes(sections: Partial<Record<Section, string | string[]>>): Buffer {
  const names = SECTIONS.filter((s) => sections[s] !== undefined);
  const pieces = [JSON.stringify(names)];
  for (const name of names) pieces.push('\n', ...[sections[name]!].flat());
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece, 'utf8');
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at, 'utf8');
  return bytes;
}

/** A run's document: calls made outside rollouts. */
export function callsDocument(calls: readonly CallPayload[]): Buffer {
  const values = new Values();
  const stored = JSON.stringify(calls.map((c) => values.call(c)));
  return documentBytes({ values: values.jsonPieces(), calls: stored });
}

/** A step as a rollout's document is given it: its prompt goes to the prompts line. */
type DocumentStep = { prompt: unknown[]; assistant: unknown; observations: unknown[] };
type Turn = { assistant: unknown; observations: unknown };

/** A rollout's document. */
export function rolloutDocument(
  r: {
    trajectory: { system: string; task: string; turns: readonly Turn[] };
    steps: readonly DocumentStep[];
    events: unknown;
  },
  calls: readonly CallPayload[],
): Buffer {
  const values = new Values();
  const turns = r.trajectory.turns.map((t, i) => {
    const step = r.steps[i];
    const same = (a: unknown, b: unknown) => a === b || jsonOf(a) === jsonOf(b);
    const plain =
      step && same(t.assistant, step.assistant) && same(t.observations, step.observations);
    return plain ? 0 : t;
  });
  const steps = r.steps.map(({ prompt: _, ...s }) => ({
    ...s,
    assistant: values.add(s.assistant),
    observations: s.observations.map((m) => values.add(m)),
  }));
  const split = values.list.length;
  const prompts = r.steps.map((s) => values.refs(s.prompt));
  const stored = calls.map((c) => values.call(c));
  const { system, task } = r.trajectory;
  return documentBytes({
    head: JSON.stringify({ system, task }),
    steps: JSON.stringify(steps),
    events: JSON.stringify(r.events),
    values: values.jsonPieces(0, split),
    turns: JSON.stringify(turns),
    prompts: JSON.stringify(prompts),
    requestValues: values.jsonPieces(split),
    calls: JSON.stringify(stored),
  });
}

/** A step as a document holds it: the StepRecord without its prompt. */
export type StoredStep = {
  index: number;
  promptTokens: number;
  assistant: unknown;
  observations: unknown[];
};

/** A decoded document; sections are decoded and parsed when first asked for. */
export class Doc {
  /** Where each section's line starts and ends in `bytes`. */
  private readonly bounds: [number, number][] = [];
  private readonly names: readonly Section[];
  private readonly parsed = new Map<Section, unknown>();
  private byId: Map<number, CallPayload> | undefined;

  /** `bytes`: the document's UTF-8 text; a section becomes a string only when it is read. */
  constructor(readonly bytes: Buffer) {
    for (let from = 0; from <= bytes.length;) {
      const end = bytes.indexOf(10, from);
      const to = end < 0 ? bytes.length : end;
      this.bounds.push([from, to]);
      from = to + 1;
    }
    this.names = bytes[0] === 0x5b ? (JSON.parse(this.line(0)) as Section[]) : UNNAMED;
    if (this.names !== UNNAMED) this.bounds.shift();
    if (this.bounds.length !== this.names.length) {
      throw new Error(
        `a stored document has ${this.bounds.length} sections, not ${this.names.length}`,
      );
    }
  }

  private line(i: number): string {
    const [from, to] = this.bounds[i]!;
    return this.bytes.toString('utf8', from, to);
  }

  /** A section's value; null when the document has none. */
  get(section: Section): unknown {
    if (!this.parsed.has(section)) {
      const i = this.names.indexOf(section);
      this.parsed.set(section, i < 0 ? null : JSON.parse(this.line(i)));
    }
    return this.parsed.get(section);
  }

  private readonly value = (i: number): unknown => {
    const values = this.get('values') as unknown[];
    if (i < values.length) return values[i];
    return (this.get('requestValues') as unknown[])[i - values.length];
  };

  /** The trajectory's system prompt and task. */
  head(): { system: string; task: string } {
    const { system, task } = (this.get('head') ?? this.get('trajectory')) as Record<string, string>;
    return { system: system!, task: task! };
  }

  steps(): StoredStep[] {
    return (this.get('steps') as StoredStep[]).map((s) => ({
      ...s,
      assistant: ref(s.assistant, this.value),
      observations: s.observations.map((m) => ref(m, this.value)),
    }));
  }

  trajectory(): unknown {
    if (this.names === UNNAMED) return this.get('trajectory');
    const steps = this.steps();
    const turns = (this.get('turns') as (0 | Turn)[]).map((t, i) =>
      t === 0 ? { assistant: steps[i]!.assistant, observations: steps[i]!.observations } : t,
    );
    return { ...this.head(), turns };
  }

  /** The messages sent to the agent at each step. */
  prompts(): unknown[][] {
    return (this.get('prompts') as unknown[][]).map((p) => p.map((m) => ref(m, this.value)));
  }

  /** A call with its request and response whole (their messages are shared: do not change them). */
  call(id: number): CallPayload | undefined {
    if (!this.byId) {
      const calls = (this.get('calls') ?? []) as CallPayload[];
      const prompt = (step: number) => this.prompts()[step]!;
      this.byId = new Map(calls.map((c) => [c.id, expandCall(c, this.value, prompt)]));
    }
    return this.byId.get(id);
  }
}

/** At most this many bytes of decoded text are kept in a cache, whatever its count of documents. */
const CACHE_BYTES = 16 * 1024 * 1024;

/** The documents read last, by number, least recently used first. */
export class DocCache {
  private readonly docs = new Map<number, Doc>();
  private bytes = 0;

  /** `size`: documents kept decoded (1 for readers that go through rollouts one by one). */
  constructor(
    private readonly load: (n: number) => Buffer,
    private readonly size: number,
  ) {}

  get(n: number): Doc {
    let doc = this.docs.get(n);
    if (doc) this.docs.delete(n);
    else {
      doc = new Doc(brotliDecompressSync(this.load(n)));
      this.bytes += doc.bytes.length;
    }
    this.docs.set(n, doc);
    for (const [k, d] of this.docs) {
      if ((this.bytes <= CACHE_BYTES && this.docs.size <= this.size) || k === n) break;
      this.docs.delete(k);
      this.bytes -= d.bytes.length;
    }
    return doc;
  }

  clear(): void {
    this.docs.clear();
    this.bytes = 0;
  }
}

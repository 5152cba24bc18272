import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  callsDocument,
  compress,
  decompress,
  Doc,
  rolloutDocument,
  type CallPayload,
} from './document.js';
import { JournalWriter, readJournal } from './journal.js';

/** A rollout whose prompts repeat its observations, as a raw agent's do: most of the text. */
function rollout(steps: number) {
  const observation = (i: number) =>
    Array.from({ length: 60 }, (_, j) => `item ${i}-${j}: ${(i * 7919 + j * 104729) % 99991}`);
  const turns = Array.from({ length: steps }, (_, i) => ({
    assistant: { role: 'assistant', content: `step ${i}` },
    observations: [{ role: 'user', content: observation(i).join('\n') }],
  }));
  const prompt = (i: number) => turns.slice(0, i).flatMap((t) => [t.assistant, ...t.observations]);
  const calls: CallPayload[] = turns.map((_, i) => ({
    id: i + 1,
    taskId: 't',
    createdAt: 0,
    request: { model: 'm', messages: prompt(i), tools: [{ name: 'call_api' }], seed: 1 },
    response: { message: turns[i]!.assistant },
  }));
  return {
    trajectory: { system: 'You are an agent.', task: 'Sum the items.', turns },
    steps: turns.map((t, i) => ({ index: i, prompt: prompt(i), callId: i + 1, ...t })),
    events: [{ kind: 'obs', step: 1, input: 'a', output: 'b' }],
    calls,
  };
}

describe('Doc', () => {
  it('writes each message of the prompts and requests once and reads them back byte for byte', () => {
    const r = rollout(40);
    const text = String(rolloutDocument(r, r.calls));
    const prompts = r.steps.map((s) => JSON.stringify(s.prompt));
    // The 40 prompts repeat 39 turns: written out, they are twenty times the turns' text.
    expect(text.length).toBeLessThan(prompts.join('').length / 8);
    const doc = new Doc(Buffer.from(text));
    expect(doc.head()).toEqual({ system: 'You are an agent.', task: 'Sum the items.' });
    expect(doc.get('events')).toEqual(r.events);
    expect(doc.steps()).toEqual(r.steps.map(({ prompt: _, ...s }) => s));
    expect(r.calls.map((c) => doc.call(c.id))).toEqual(r.calls);
    expect(JSON.stringify(doc.trajectory())).toBe(JSON.stringify(r.trajectory));
    expect(doc.prompts().map((p) => JSON.stringify(p))).toEqual(prompts);
    const requests = r.calls.map((c) => JSON.stringify(doc.call(c.id)!.request));
    expect(requests).toEqual(r.calls.map((c) => JSON.stringify(c.request)));
  });

  it('writes text beyond ASCII as UTF-8 and reads it back', () => {
    const r = rollout(3);
    r.trajectory.turns[1]!.observations[0]!.content += ' café 🙂 中文';
    const doc = new Doc(rolloutDocument(r, r.calls));
    expect(JSON.stringify(doc.trajectory())).toBe(JSON.stringify(r.trajectory));
    expect(new Doc(callsDocument(r.calls)).call(2)).toEqual(r.calls[1]);
  });

  it("reads a trajectory without parsing the requests' messages", () => {
    const r = rollout(5);
    const lines = String(rolloutDocument(r, r.calls)).split('\n');
    const names = JSON.parse(lines[0]!) as string[];
    lines[1 + names.indexOf('requestValues')] = 'not JSON';
    const doc = new Doc(Buffer.from(lines.join('\n')));
    expect(JSON.stringify(doc.trajectory())).toBe(JSON.stringify(r.trajectory));
    expect(doc.steps()).toEqual(r.steps.map(({ prompt: _, ...s }) => s));
    expect(() => doc.call(1)).toThrow(SyntaxError);
  });

  it('keeps a turn that differs from its step (an answer the benchmark cut) in full', () => {
    const r = rollout(3);
    const turns = r.trajectory.turns.map((t, i) =>
      i === 1 ? { ...t, assistant: { role: 'assistant', content: 'cut' } } : t,
    );
    const doc = new Doc(rolloutDocument({ ...r, trajectory: { ...r.trajectory, turns } }, []));
    expect(doc.trajectory()).toEqual({ ...r.trajectory, turns });
  });

  it('reads a document written before its first line named the sections', () => {
    const r = rollout(3);
    const calls = r.calls.map((c, i) => ({ ...c, request: { ...c.request, messages: i } }));
    const steps = r.steps.map(({ prompt: _, ...s }) => s);
    const unnamed = [r.trajectory, steps, r.steps.map((s) => s.prompt), r.events, calls];
    const doc = new Doc(Buffer.from(unnamed.map((s) => JSON.stringify(s)).join('\n')));
    expect(doc.head()).toEqual({ system: r.trajectory.system, task: r.trajectory.task });
    expect(doc.trajectory()).toEqual(r.trajectory);
    expect(doc.steps()).toEqual(steps);
    expect(doc.get('events')).toEqual(r.events);
    expect(doc.prompts()).toEqual(r.steps.map((s) => s.prompt));
    expect(JSON.stringify(doc.call(3)!.request)).toBe(JSON.stringify(r.calls[2]!.request));
  });

  it('reads a schema-2 document, whose steps and responses held their messages', () => {
    const r = rollout(3);
    const values = [...new Set(r.steps.flatMap((s) => s.prompt.map((m) => JSON.stringify(m))))];
    const index = (m: unknown) => values.indexOf(JSON.stringify(m));
    const tools = values.push(JSON.stringify(r.calls[0]!.request.tools)) - 1;
    const calls = r.calls.map((c) => ({
      ...c,
      requestHash: `h${c.id}`,
      request: { ...c.request, messages: (c.request.messages as unknown[]).map(index), tools },
    }));
    const steps = r.steps.map(({ prompt: _, ...s }) => s);
    const text = [
      JSON.stringify(['head', 'steps', 'events', 'values', 'turns', 'prompts', 'calls']),
      JSON.stringify({ system: r.trajectory.system, task: r.trajectory.task }),
      JSON.stringify(steps),
      JSON.stringify(r.events),
      `[${values.join(',')}]`,
      JSON.stringify([0, 0, 0]),
      JSON.stringify(r.steps.map((s) => s.prompt.map(index))),
      JSON.stringify(calls),
    ].join('\n');
    const doc = new Doc(Buffer.from(text));
    expect(doc.trajectory()).toEqual(r.trajectory);
    expect(doc.steps()).toEqual(steps);
    expect(doc.prompts()).toEqual(r.steps.map((s) => s.prompt));
    expect(r.calls.map((c) => doc.call(c.id))).toEqual(r.calls);
  });

  it('reads a run document, which holds only calls', () => {
    const { calls } = rollout(2);
    const doc = new Doc(callsDocument(calls));
    expect(JSON.stringify(doc.call(2)!.request)).toBe(JSON.stringify(calls[1]!.request));
    expect(doc.get('steps')).toBeNull();
  });
});

describe('JournalWriter', () => {
  const call = (id: number, messages: unknown[]): CallPayload => ({
    id,
    taskId: 't',
    createdAt: 0,
    request: { model: 'm', messages },
    response: { message: { role: 'assistant', content: `answer ${id}` } },
  });

  it('refers to a message by the object at its place in the last prompt, never by the place alone', () => {
    const m = (content: string) => ({ role: 'user', content });
    const [a, b, c, d] = [m('a'), m('b'), m('c'), m('d')];
    const w = new JournalWriter();
    const calls = [call(1, [a, b]), call(2, [a, c]), call(3, [a, c, d])];
    const rows = [w.row(1, calls[0]!).text, w.row(1, calls[1]!).text];
    // A row whose write was rolled back: its values are forgotten, so the next row writes them.
    w.row(1, call(3, [a, c, d, m('e')])).undo();
    rows.push(w.row(1, calls[2]!).text);
    const read = readJournal(
      rows.map((_, i) => ({ id: i + 1, rollout: 1 })),
      () => undefined,
      (id) => rows[id - 1]!,
    );
    expect(read).toEqual(calls);
  });

  it('reads no row of a call the process still holds (a save reads only what it lacks)', () => {
    const w = new JournalWriter();
    const held = call(1, [{ role: 'user', content: 'a' }]);
    w.row(1, held);
    const read: number[] = [];
    const got = readJournal(
      [{ id: 1, rollout: 1 }],
      (id) => (id === 1 ? held : undefined),
      (id) => {
        read.push(id);
        return '';
      },
    );
    expect(got).toEqual([held]);
    expect(read).toEqual([]);
  });
});

/** The window a brotli stream declares in its first bits (RFC 7932, section 9.1): log2 of bytes. */
function windowBits(stream: Buffer): number {
  const bits = stream.readUInt8(0);
  if ((bits & 1) === 0) return 16;
  const n = (bits >> 1) & 7;
  if (n !== 0) return 17 + n;
  const m = (bits >> 4) & 7;
  return m === 0 ? 17 : 8 + m;
}

describe('compress', () => {
  it('sizes the window to the text, up to 16 MiB: a larger one only costs time (issue #28)', () => {
    for (const [bytes, expected] of [
      [1_000, 10],
      [100_000, 17],
      [3_000_000, 22],
      [9_000_000, 24],
    ] as const) {
      // Random blocks, each repeated: the text is fast to compress, whatever its size.
      const block = randomBytes(500).toString('hex');
      const text = block.repeat(bytes / block.length);
      const stream = compress(text);
      expect(windowBits(stream), `${bytes} bytes`).toBe(expected);
      expect(decompress(stream)).toBe(text);
    }
  });
});

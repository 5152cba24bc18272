import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTraceFile } from './trace-file.js';

function file(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'acon-traces-')), 'traces.jsonl');
  writeFileSync(path, lines.join('\n'));
  return path;
}

const good = {
  id: 'c1',
  messages: [
    { role: 'developer', content: 'You are an agent.' },
    { role: 'user', content: [{ type: 'text', text: 'Pay Ann.' }] },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'find', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 't1', content: '{"id": "acc-77"}' },
    { role: 'assistant', content: 'Done.' },
  ],
  outcome: 'success',
};

describe('readTraceFile', () => {
  it('reads conversations in the OpenAI chat format, developer as system, text parts joined', async () => {
    const { traces, problems } = await readTraceFile(file([JSON.stringify(good), '']));
    expect(problems).toEqual([]);
    expect(traces).toHaveLength(1);
    expect(traces[0]!.messages[0]).toEqual({ role: 'system', content: 'You are an agent.' });
    expect(traces[0]!.messages[1]).toEqual({ role: 'user', content: 'Pay Ann.' });
    expect(traces[0]!.outcome).toBe('success');
    expect(traces[0]!.source).toMatch(/traces\.jsonl:1$/);
  });

  it('gives a line without an id a stable id from its text', async () => {
    const line = JSON.stringify({ ...good, id: undefined });
    const a = await readTraceFile(file([line]));
    const b = await readTraceFile(file(['', line]));
    expect(a.traces[0]!.id).toMatch(/^[0-9a-f]{16}$/);
    expect(b.traces[0]!.id).toBe(a.traces[0]!.id);
  });

  it('names the line and the field of each problem', async () => {
    const unknownRole = { ...good, id: 'c2', messages: [{ role: 'wizard', content: 'x' }] };
    const orphan = {
      id: 'c3',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'ok' },
        { role: 'tool', tool_call_id: 'nope', content: 'y' },
      ],
    };
    const { traces, problems } = await readTraceFile(
      file([
        JSON.stringify(good),
        '{not json',
        JSON.stringify(unknownRole),
        JSON.stringify(orphan),
      ]),
    );
    expect(traces.map((t) => t.id)).toEqual(['c1']);
    expect(problems.map((p) => [p.line, p.field])).toEqual([
      [2, '(line)'],
      [3, 'messages[0].role'],
      [4, 'messages[2].tool_call_id'],
    ]);
    expect(problems[0]!.message).toMatch(/:2: \(line\): not JSON/);
    expect(problems[1]!.detail).toMatch(/system, developer, user, assistant, tool/);
    expect(problems[2]!.detail).toMatch(/"nope" answers no tool call/);
  });

  it('refuses an empty file and a repeated id', async () => {
    expect((await readTraceFile(file(['', '  ']))).problems[0]!.detail).toMatch(
      /holds no conversation/,
    );
    const twice = await readTraceFile(file([JSON.stringify(good), JSON.stringify(good)]));
    expect(twice.problems.map((p) => [p.line, p.field])).toEqual([[2, 'id']]);
  });
});

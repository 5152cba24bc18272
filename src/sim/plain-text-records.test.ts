import { describe, expect, it } from 'vitest';
import { plainTextRecords } from './plain-text-records.js';
import { RecordReader } from './record-reader.js';

describe('plainTextRecords', () => {
  it('reads each line, and a key: value line also as that field', () => {
    expect(plainTextRecords('[FILE] q1.md\n\n[DIR] old\nQ1 budget: 4200 USD\n')).toEqual([
      { line: '[FILE] q1.md' },
      { line: '[DIR] old' },
      { 'Q1 budget': '4200 USD', line: 'Q1 budget: 4200 USD' },
    ]);
  });

  it('reads a URL as a line, not as a field named http', () => {
    expect(plainTextRecords('see https://example.test/a')).toEqual([
      { line: 'see https://example.test/a' },
    ]);
  });
});

describe('RecordReader.records of a plain-text tool result', () => {
  const call = {
    role: 'assistant' as const,
    content: null,
    tool_calls: [
      {
        id: 'c1',
        type: 'function' as const,
        function: { name: 'fs__read_text_file', arguments: '{"path":"notes/q1.md"}' },
      },
    ],
  };
  it('are its lines, read as the observation of its call', () => {
    const records = new RecordReader().records([
      { role: 'user', content: 'Total: read the notes' },
      call,
      { role: 'tool', tool_call_id: 'c1', content: 'Q1 budget: 4200 USD' },
    ]);
    const observed = records.filter((r) => r.source.kind === 'observation');
    expect(observed.map((r) => r.fields)).toEqual([
      { 'Q1 budget': '4200 USD', line: 'Q1 budget: 4200 USD' },
    ]);
    // The task's own text is not read as values the agent was given.
    expect(records.some((r) => r.source.kind === 'user')).toBe(false);
  });

  it('are not added to a result that holds JSON', () => {
    const records = new RecordReader().records([
      call,
      { role: 'tool', tool_call_id: 'c1', content: '{"id": 7, "name": "q1"}' },
    ]);
    expect(records.filter((r) => r.source.kind === 'observation').map((r) => r.fields)).toEqual([
      { id: '7', name: 'q1' },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../llm/types.js';
import { visibleRecords } from './records.js';

const docs = JSON.stringify(
  Array.from({ length: 6 }, (_, i) => ({ name: `api_${i}`, description: `Does thing ${i}.` })),
  null,
  2,
);

describe('visibleRecords', () => {
  it('reads a text again in a new message object as the same records, placed in that message', () => {
    // Two rollouts read the same documentation, each in a message object of its own.
    const first: ChatMessage[] = [{ role: 'user', content: docs }];
    const second: ChatMessage[] = [
      { role: 'user', content: 'Task.' },
      { role: 'user', content: `${docs}` },
    ];
    const a = visibleRecords(first);
    const b = visibleRecords(second);
    expect(a).toHaveLength(6);
    expect(b.map((r) => r.fields)).toEqual(a.map((r) => r.fields));
    // Read once: the second message shares the first one's frozen fields.
    expect(b[0]!.fields).toBe(a[0]!.fields);
    expect(Object.isFrozen(b[0]!.fields)).toBe(true);
  });
});

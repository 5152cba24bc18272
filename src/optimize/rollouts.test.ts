import { describe, expect, it } from 'vitest';
import { countMessageTokens } from '../llm/tokenizer.js';
import type { ChatMessage, ToolDef } from '../llm/types.js';
import { sharedPrefixTokens } from './rollouts.js';

const tools: ToolDef[] = [
  { type: 'function', function: { name: 'f', description: 'd', parameters: {} } },
];
const system: ChatMessage = { role: 'system', content: 'You are an agent.' };
const task: ChatMessage = { role: 'user', content: 'Do the task.' };
const turn = (i: number): ChatMessage[] => [
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: `c${i}`, type: 'function', function: { name: 'f', arguments: `{"i":${i}}` } },
    ],
  },
  { role: 'tool', tool_call_id: `c${i}`, content: `result ${i}` },
];

describe('sharedPrefixTokens', () => {
  it('counts the leading messages a prompt shares with the one before, by content', () => {
    const t0 = turn(0);
    const t1 = turn(1);
    const steps = [
      { callId: 1, prompt: [system, task] },
      { callId: 2, prompt: [system, task, ...t0] },
      // Rebuilt copies with the same content share as much as the objects themselves.
      { callId: 3, prompt: [{ ...system }, { ...task }, ...t0.map((m) => ({ ...m })), ...t1] },
      // A compressed history: only the system prompt and the task remain in common.
      { callId: 4, prompt: [system, task, { role: 'user', content: 'summary' } as ChatMessage] },
    ];
    const shared = sharedPrefixTokens(steps, tools);
    expect([...shared.keys()]).toEqual([2, 3, 4]);
    expect(shared.get(2)).toBe(countMessageTokens([system, task], tools));
    expect(shared.get(3)).toBe(countMessageTokens([system, task, ...t0], tools));
    expect(shared.get(4)).toBe(countMessageTokens([system, task], tools));
  });

  it('is 0 when even the first message differs', () => {
    const other: ChatMessage = { role: 'system', content: 'Another system prompt.' };
    const shared = sharedPrefixTokens(
      [
        { callId: 1, prompt: [system, task] },
        { callId: 2, prompt: [other, task] },
      ],
      tools,
    );
    expect(shared.get(2)).toBe(0);
  });
});

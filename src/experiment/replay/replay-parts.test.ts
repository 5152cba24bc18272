import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../domain/message.js';
import type { Trace } from '../../domain/trace.js';
import { actionOf, normalizeArguments, sameAction } from './actions.js';
import { findProbes, probesKept } from './probes.js';
import { splitTraces, traceRank } from './trace-split.js';

const call = (id: string, name: string, args: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
});

describe('actions', () => {
  it('compares arguments after normalising key order, whitespace and number formatting', () => {
    expect(normalizeArguments('{"b": 1.50, "a": " x "}')).toBe(
      normalizeArguments('{"a":"x","b":1.5}'),
    );
    expect(normalizeArguments('{"n": "42"}')).toBe(normalizeArguments('{"n": 42}'));
    expect(normalizeArguments('{"n": 43}')).not.toBe(normalizeArguments('{"n": 42}'));
    const a = actionOf(call('1', 'pay', '{"to": "ann", "amount": 5}') as never);
    const b = actionOf(call('2', 'pay', '{ "amount": 5.0, "to": "ann" }') as never);
    const c = actionOf(call('3', 'refund', '{"to": "ann", "amount": 5}') as never);
    expect(sameAction(a, b)).toBe(true);
    expect(sameAction(a, c)).toBe(false);
  });

  it('compares final answers by the normaliser, and an answer never equals a tool call', () => {
    const x = actionOf({ role: 'assistant', content: ' "Paris." ' });
    const y = actionOf({ role: 'assistant', content: 'paris' });
    expect(sameAction(x, y)).toBe(true);
    expect(sameAction(x, actionOf(call('1', 'paris', '{}') as never))).toBe(false);
  });
});

describe('probes', () => {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'agent' },
    { role: 'user', content: 'Refund order 2231 of Ann.' },
    call('c1', 'find_order', '{"order": 2231}'),
    { role: 'tool', tool_call_id: 'c1', content: '{"payment_id": "pay_93xk", "amount": 18.5}' },
    call('c2', 'refund', '{"payment_id": "pay_93xk", "amount": 18.5, "order": 2231}'),
    { role: 'tool', tool_call_id: 'c2', content: '{"ok": true}' },
    { role: 'assistant', content: 'Refunded 18.5 via pay_93xk.' },
  ];

  it('finds values first seen in an observation and used later, never ones from the task', () => {
    const probes = findProbes(messages);
    expect(probes.map((p) => [p.step, p.value])).toEqual([
      [1, 'pay_93xk'],
      [1, '18.5'],
      [2, '18.5'],
      [2, 'pay_93xk'],
    ]);
    expect(probes.every((p) => p.seenAt === 3)).toBe(true);
  });

  it('says which probes a compressed context kept', () => {
    const probes = findProbes(messages);
    const view: ChatMessage[] = [
      ...messages.slice(0, 3),
      { role: 'tool', tool_call_id: 'c1', content: 'payment pay_93xk' },
    ];
    const { kept, lost } = probesKept(probes, 1, view);
    expect(kept.map((p) => p.value)).toEqual(['pay_93xk']);
    expect(lost.map((p) => p.value)).toEqual(['18.5']);
  });
});

describe('trace splits', () => {
  const trace = (id: string): Trace => ({
    id,
    messages: [{ role: 'user', content: id }],
    tools: [],
    outcome: 'unknown',
    source: id,
  });
  const ids = Array.from({ length: 400 }, (_, i) => `conv-${i}`);

  it('puts a conversation in the same split whatever else the file holds', () => {
    const all = splitTraces(ids.map(trace), { train: 0.5, selection: 0.25 }, 7);
    const half = splitTraces(ids.slice(0, 200).map(trace), { train: 0.5, selection: 0.25 }, 7);
    for (const part of ['train', 'selection', 'heldout'] as const) {
      const inAll = new Set(all[part].map((t) => t.id));
      expect(half[part].every((t) => inAll.has(t.id))).toBe(true);
    }
    expect(all.train.length).toBeGreaterThan(160);
    expect(all.train.length).toBeLessThan(240);
  });

  it('moves conversations with another seed', () => {
    expect(
      ids.filter((id) => traceRank(id, 1) < 0.5 !== traceRank(id, 2) < 0.5).length,
    ).toBeGreaterThan(100);
  });
});

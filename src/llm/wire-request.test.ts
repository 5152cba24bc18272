import { describe, expect, it } from 'vitest';
import type { ChatMessage, ProviderRequest, ToolDef } from './types.js';
import { BodyPool } from './body-pool.js';
import { chatRequestBody, toWireRequest } from './wire-request.js';

const chatRequestJson = (req: ProviderRequest) => chatRequestBody(req).toString('utf8');

const tools: ToolDef[] = [
  {
    type: 'function',
    function: { name: 'call_api', description: 'Call an API.', parameters: { type: 'object' } },
  },
];
const history: ChatMessage[] = [
  { role: 'system', content: 'You are an agent. "Quotes", \\ and \u2028 survive.' },
  { role: 'user', content: 'Pay Ann 12.50.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'call_api', arguments: '{"app":"x"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: '{"ok":true,"emoji":"\ud83d\ude00"}' },
];
const ctx = { role: 'agent' as const, runId: 'r' };

describe('chatRequestBody', () => {
  it.each<[string, Partial<ProviderRequest>]>([
    ['messages only', {}],
    ['tools', { tools }],
    ['an empty tool list (left out)', { tools: [] }],
    ['sampling and seed', { temperature: 0.2, maxTokens: 256, seed: 7 }],
    ['a response format', { responseFormat: { name: 'out', schema: { type: 'object' } } }],
    ['everything', { tools, temperature: 0, maxTokens: 10, seed: 1 }],
  ])('writes JSON.stringify(toWireRequest(req)) byte for byte with %s', (_name, extra) => {
    const req: ProviderRequest = { model: 'gpt-4.1', messages: history, ctx, ...extra };
    expect(chatRequestJson(req)).toBe(JSON.stringify(toWireRequest(req)));
  });

  it('gives the same text for a prompt that reuses message objects of an earlier one', () => {
    const first: ProviderRequest = { model: 'm', messages: history.slice(0, 2), ctx, tools };
    const second: ProviderRequest = { model: 'm', messages: history, ctx, tools };
    chatRequestJson(first);
    expect(chatRequestJson(second)).toBe(JSON.stringify(toWireRequest(second)));
    // A copy with the same content serializes the same as the object it was copied from.
    const copies = history.map((m) => ({ ...m }));
    expect(chatRequestJson({ ...second, messages: copies })).toBe(chatRequestJson(second));
  });

  it('writes the same bytes into reused memory, whatever the body that used it before', () => {
    const pool = new BodyPool();
    const long: ProviderRequest = { model: 'm', messages: history, ctx, tools };
    const short: ProviderRequest = { model: 'm', messages: history.slice(0, 2), ctx };
    const first = chatRequestBody(long, pool);
    expect(first.toString('utf8')).toBe(JSON.stringify(toWireRequest(long)));
    pool.give(first);
    const second = chatRequestBody(short, pool);
    expect(second.buffer).toBe(first.buffer);
    expect(second.toString('utf8')).toBe(JSON.stringify(toWireRequest(short)));
  });
});

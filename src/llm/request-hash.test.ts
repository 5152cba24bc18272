import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { requestHash, writeCanonical, type HashedRequest } from './request-hash.js';

const base: HashedRequest = {
  provider: 'openai',
  model: 'gpt-4.1',
  messages: [{ role: 'user', content: 'hi' }],
  temperature: 0,
  maxTokens: 100,
};

const digest = (value: unknown) => {
  const h = createHash('sha256');
  writeCanonical(h, value);
  return h.digest('hex');
};

describe('writeCanonical', () => {
  it('ignores key order at every level and keys set to undefined', () => {
    expect(digest({ b: 1, a: { d: [2, { z: 1, y: undefined, x: null }], c: 3 } })).toBe(
      digest({ a: { c: 3, d: [2, { x: null, z: 1 }] }, b: 1 }),
    );
  });

  it.each([
    [['ab'], ['a', 'b']],
    [{ a: 'b' }, ['a', 'b']],
    [
      ['a', ['b']],
      [['a'], 'b'],
    ],
    ['1', 1],
    [true, 'true'],
    [null, 'n'],
    ['s1:a', ['a']],
  ])('tells %j from %j', (x, y) => {
    expect(digest(x)).not.toBe(digest(y));
  });
});

describe('requestHash', () => {
  it('is a sha256 hex digest', () => {
    expect(requestHash(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores key order and unset fields', () => {
    const reordered: HashedRequest = {
      maxTokens: 100,
      temperature: 0,
      messages: [{ content: 'hi', role: 'user' }],
      model: 'gpt-4.1',
      provider: 'openai',
      seed: undefined,
      tools: [],
    };
    expect(requestHash(reordered)).toBe(requestHash(base));
  });

  it.each([
    ['provider', { provider: 'sim' }],
    ['model', { model: 'gpt-4.1-mini' }],
    ['messages', { messages: [{ role: 'user' as const, content: 'hi!' }] }],
    ['temperature', { temperature: 0.7 }],
    ['maxTokens', { maxTokens: 101 }],
    ['seed', { seed: 1 }],
    ['responseFormat', { responseFormat: { name: 'x', schema: { type: 'object' } } }],
  ])('changes with %s', (_field, change) => {
    expect(requestHash({ ...base, ...change })).not.toBe(requestHash(base));
  });
});

describe('requestHash encoding', () => {
  it('keeps the cache key of a recorded request (changing it orphans every cached answer)', () => {
    // Computed by the piece-by-piece encoder of acon-request-v2; lone surrogates included.
    const messages = [
      { role: 'system', content: 'sys \ud83d\ude00 é' },
      { role: 'user', content: 'lone \ud83d' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
      },
      { role: 'tool', tool_call_id: 'c', content: '\udc00tail' },
    ] as HashedRequest['messages'];
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'f', description: 'd', parameters: { a: [1, 2, { b: null }] } },
      },
    ];
    expect(
      requestHash({
        provider: 'openai',
        model: 'm',
        messages,
        temperature: 0.5,
        maxTokens: 10,
        seed: 3,
        tools,
        responseFormat: { name: 'x', schema: { type: 'object' } },
      }),
    ).toBe('74b2c2b40492d1bb1b02f58970f9553f7af62b56808e5503fec606bd9c569afa');
  });

  it('equals the canonical encoding of the whole request, whichever fields are set', () => {
    // What requestHash encodes, built the generic way: the request as an object, each message
    // and the tool list by its own digest.
    const reference = (r: HashedRequest) => {
      const h = createHash('sha256');
      h.update('acon-request-v2');
      const tools = r.tools && r.tools.length > 0 ? digest(r.tools) : undefined;
      writeCanonical(h, { ...r, messages: r.messages.map((m) => digest(m)), tools });
      return h.digest('hex');
    };
    const tools = [
      { type: 'function' as const, function: { name: 'f', description: 'd', parameters: {} } },
    ];
    const optional: Partial<HashedRequest>[] = [
      {},
      { tools },
      { tools: [] },
      { seed: 7, temperature: 0.3 },
      { maxTokens: undefined, temperature: undefined },
      { responseFormat: { name: 'x', schema: { b: [1, null], a: 'é' } }, seed: 0 },
      { messages: [] },
      // A message longer than what is hashed in one piece, with text beyond ASCII at its ends.
      { messages: [{ role: 'user', content: `é${'long prompt line\n'.repeat(2000)}🙂` }] },
    ];
    for (const change of optional) {
      const r = { ...base, ...change };
      expect(requestHash(r), JSON.stringify(change)).toBe(reference(r));
    }
  });
});

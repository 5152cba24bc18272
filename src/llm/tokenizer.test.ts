import { describe, expect, it } from 'vitest';
import { countMessageTokens, countTokens, createTokenCounter } from './tokenizer.js';
import type { ChatMessage, ToolDef } from './types.js';

describe('countTokens', () => {
  it('counts o200k_base tokens of a string', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
  });

  it('counts special-token text as plain text instead of throwing', () => {
    expect(countTokens('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('gives the same count from the cache as from a fresh count', () => {
    const long = 'The quick brown fox jumps over the lazy dog. '.repeat(50);
    const counter = createTokenCounter(2);
    const first = counter.countTokens(long);
    expect(counter.countTokens(long)).toBe(first);
    // Evict it, then count again.
    counter.countTokens('a'.repeat(100));
    counter.countTokens('b'.repeat(100));
    expect(counter.countTokens(long)).toBe(first);
    expect(first).toBe(countTokens(long));
  });

  it('keeps counting right when the cache evicts by characters', () => {
    const counter = createTokenCounter(1000, 400);
    const texts = ['alpha ', 'beta ', 'gamma ', 'delta '].map((w) => w.repeat(16));
    const counts = texts.map((t) => counter.countTokens(t));
    // Each text is ~90 characters: the 400-character budget holds four, a fifth evicts.
    expect(texts.map((t) => counter.countTokens(t))).toEqual(counts);
    const huge = 'word '.repeat(500);
    expect(counter.countTokens(huge)).toBe(countTokens(huge));
    expect(counter.countTokens('epsilon '.repeat(12))).toBe(countTokens('epsilon '.repeat(12)));
    expect(texts.map((t) => counter.countTokens(t))).toEqual(texts.map((t) => countTokens(t)));
  });
});

describe('countMessageTokens', () => {
  const user: ChatMessage = { role: 'user', content: 'hello world' };

  it('adds the per-message framing and the reply priming', () => {
    // 3 (reply) + 3 (message) + 1 ("user") + 2 ("hello world")
    expect(countMessageTokens([user])).toBe(9);
    expect(countMessageTokens([user, user])).toBe(15);
  });

  it('counts tool-call names and arguments', () => {
    const bare: ChatMessage = { role: 'assistant', content: null };
    const calling: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'wallet_pay', arguments: '{"to":"acct-889","amount":12.5}' },
        },
      ],
    };
    const extra = countMessageTokens([calling]) - countMessageTokens([bare]);
    expect(extra).toBeGreaterThan(countTokens('{"to":"acct-889","amount":12.5}'));
  });

  it('counts tool definitions when given', () => {
    const tool: ToolDef = {
      type: 'function',
      function: {
        name: 'notes_search',
        description: 'Search notes by text',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
      },
    };
    expect(countMessageTokens([user], [tool])).toBeGreaterThan(countMessageTokens([user]) + 10);
    expect(countMessageTokens([user], [])).toBe(countMessageTokens([user]));
  });
});

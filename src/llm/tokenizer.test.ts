import { describe, expect, it } from 'vitest';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { wordCount, writeWordTokenizer } from '../../test/helpers/word-tokenizer.js';
import {
  checkTokenizer,
  countMessageTokens,
  countTokens,
  createTokenCounter,
  tokenCounterFor,
} from './tokenizer.js';
import type { ChatMessage, ToolDef } from './types.js';
import { seededRandom } from '../seeded-random.js';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';

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

  it('counts short texts and runs of short lines right, remembered or not', () => {
    const counter = createTokenCounter();
    const whole = (text: string) => o200k.countTokens(text, { disallowedSpecial: new Set() });
    // More distinct short texts than the small map holds: it is emptied on the way.
    const texts = Array.from({ length: 5000 }, (_, i) => `id ${i * 7919}`);
    texts.push('assistant', '}', 'FACTS:\n[shop.login]\n<|endoftext|>');
    for (const round of [1, 2]) {
      expect(
        texts.map((t) => counter.countTokens(t)),
        `round ${round}`,
      ).toEqual(texts.map(whole));
    }
    const lines = `FACTS:\n${texts.slice(0, 40).join('\n')}\n}\n- a long line that is counted on its own\n]`;
    expect(counter.countTokens(lines)).toBe(whole(lines));
    expect(counter.countTokens(lines)).toBe(whole(lines));
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

describe('counting a text line by line', () => {
  // Everything next to a line feed that the o200k split treats specially: whitespace of every
  // kind, `/`, digits, contractions, letters of both cases, marks, emoji, punctuation.
  const ALPHABET = [
    '\n',
    '\n',
    '\n',
    '\r',
    ' ',
    ' ',
    '  ',
    '\t',
    '/',
    '//',
    'a',
    'Z',
    'Word',
    'word',
    "'s",
    "'LL",
    '1',
    '42',
    '1234',
    '{',
    '}',
    '"',
    ',',
    ':',
    '-',
    '#',
    'é',
    'É',
    '\u0301',
    '中文',
    '🙂',
    '\u00a0',
    '\u2028',
    '\u3000',
    '<|endoftext|>',
    '.\n',
    '}\n',
    '/\n',
    ' \n',
    '\n\n',
    '\r\n',
  ];

  it('gives exactly the count of the whole text, cut at every line it may be cut at', () => {
    // Seeded: the same strings in every run.
    const random = seededRandom('tokenizer line cuts', 28);
    // minPiece 1: every allowed cut is taken; a tiny cache also evicts all the time.
    const counter = createTokenCounter(8, 200, 1);
    for (let i = 0; i < 3000; i++) {
      const parts: string[] = [];
      const n = 1 + Math.floor(random() * 60);
      for (let j = 0; j < n; j++) parts.push(ALPHABET[Math.floor(random() * ALPHABET.length)]!);
      const text = parts.join('');
      const expected = createTokenCounter(0, 0, Number.MAX_SAFE_INTEGER).countTokens(text);
      expect({ text, n: counter.countTokens(text) }).toEqual({ text, n: expected });
    }
  });

  it('gives the count of the whole text in cl100k too, cut at the same lines (issue #54)', () => {
    const random = seededRandom('tokenizer line cuts cl100k', 54);
    const counter = createTokenCounter(8, 200, 1, 'cl100k');
    for (let i = 0; i < 3000; i++) {
      const parts: string[] = [];
      const n = 1 + Math.floor(random() * 60);
      for (let j = 0; j < n; j++) parts.push(ALPHABET[Math.floor(random() * ALPHABET.length)]!);
      const text = parts.join('');
      const expected = cl100k.countTokens(text, { disallowedSpecial: new Set() });
      expect({ text, n: counter.countTokens(text) }).toEqual({ text, n: expected });
    }
  });

  it('counts pretty-printed JSON, prose and a repeated history the same as in one piece', () => {
    const record = (i: number) =>
      JSON.stringify(
        { id: `acct-${i}`, amount: i * 12.5, note: `Paid for item ${i}'s order` },
        null,
        2,
      );
    const history = Array.from({ length: 40 }, (_, i) => `Step ${i}:\n${record(i)}\n`).join('\n');
    const texts = [
      history,
      `Summary so far:\n- paid acct-1\n/ path line\n  indented\n${history}`,
      history.replace(/\n/g, '\r\n'),
    ];
    const counter = createTokenCounter();
    const whole = createTokenCounter(0, 0, Number.MAX_SAFE_INTEGER);
    for (const text of texts) {
      expect(counter.countTokens(text)).toBe(whole.countTokens(text));
      // The second time its lines come from the cache.
      expect(counter.countTokens(text)).toBe(whole.countTokens(text));
    }
  });
});

describe('tokenCounterFor (issue #54)', () => {
  it('counts in the named encoding and says which it is', () => {
    const text = 'Übersicht der Zahlungen: 12.345,67 € an Zoë — 中文的说明 🙂\n'.repeat(20);
    const o = tokenCounterFor('o200k');
    const c = tokenCounterFor('cl100k');
    expect(o.tokenizer).toBe('o200k');
    expect(c.tokenizer).toBe('cl100k');
    expect(o.countTokens(text)).toBe(o200k.countTokens(text));
    expect(c.countTokens(text)).toBe(cl100k.countTokens(text));
    expect(c.countTokens(text)).not.toBe(o.countTokens(text));
  });
});

describe('a Hugging Face tokenizer (hf:PATH)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'acon-hf-'));
  const file = join(dir, writeWordTokenizer(dir));

  it("counts in the model's own tokenizer.json, not in a GPT encoding", () => {
    const counter = tokenCounterFor(`hf:${file}`);
    expect(counter.tokenizer).toBe(`hf:${file}`);
    const text = '{"id": 4821, "title": "Blue Train"}\n{"id": 4822, "title": "Giant Steps"}';
    expect(counter.countTokens(text)).toBe(wordCount(text));
    expect(counter.countTokens(text)).not.toBe(countTokens(text));
    const long = Array.from({ length: 200 }, (_, i) => `line ${i}: value=${i * 7}`).join('\n');
    expect(counter.countTokens(long)).toBe(wordCount(long));
    const messages: ChatMessage[] = [{ role: 'user', content: 'find record 7' }];
    // The chat framing as for every encoding (3 per message, 3 for the reply) plus the words.
    expect(counter.countMessageTokens(messages)).toBe(3 + 3 + wordCount('user') + 3);
  });

  it('stops with a config error naming the file when it is missing or not a tokenizer', () => {
    expect(() => checkTokenizer(`hf:${join(dir, 'nope.json')}`)).toThrow(ConfigError);
    expect(() => checkTokenizer(`hf:${join(dir, 'nope.json')}`)).toThrow(
      /nope\.json.*no such file/,
    );
    writeFileSync(join(dir, 'bad.json'), '{"model": {"type": "NoSuchModel"}}');
    expect(() => checkTokenizer(`hf:${join(dir, 'bad.json')}`)).toThrow(
      /bad\.json.*not a tokenizer\.json/,
    );
    writeFileSync(join(dir, 'text.json'), 'not json');
    expect(() => checkTokenizer(`hf:${join(dir, 'text.json')}`)).toThrow(/not JSON/);
    // The GPT encodings ship with acon: nothing to check.
    expect(() => checkTokenizer('cl100k')).not.toThrow();
  });
});

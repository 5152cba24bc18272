import { describe, expect, it } from 'vitest';
import { scrubMessages, scrubText, scrubTools } from './scrub.js';

describe('scrubText', () => {
  it.each([
    ['an OpenAI key', 'key sk-proj-AbCdEf123456_-xyz here', 'key [REDACTED] here'],
    ['a Bearer token', 'use Bearer eyJhbGciOi.x.y now', 'use [REDACTED] now'],
    [
      'an Authorization header line',
      'GET /\nAuthorization: Basic dXNlcjpwdw==\nHost: x',
      'GET /\n[REDACTED]\nHost: x',
    ],
    [
      'an Authorization JSON field',
      '{"Authorization": "Bearer abc", "id": 7}',
      '{[REDACTED], "id": 7}',
    ],
  ])('replaces %s', (_name, text, expected) => {
    const r = scrubText(text);
    expect(r.value).toBe(expected);
    expect(r.count).toBeGreaterThan(0);
  });

  it('leaves ordinary text alone', () => {
    const text = 'task-list sk-8 the bearer of news; authorization pending';
    expect(scrubText(text)).toEqual({ value: text, count: 0 });
  });
});

describe('scrubMessages / scrubTools', () => {
  it('scrubs contents, tool-call arguments and tool definitions, counting each', () => {
    const key = 'sk-live-1234567890abcdef';
    const m = scrubMessages([
      { role: 'user', content: `my key is ${key}` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c', type: 'function', function: { name: 'login', arguments: `{"key":"${key}"}` } },
        ],
      },
      { role: 'tool', tool_call_id: 'c', content: 'ok' },
    ]);
    expect(JSON.stringify(m.value)).not.toContain(key);
    expect(m.count).toBe(2);
    const t = scrubTools([
      {
        type: 'function',
        function: { name: 'f', description: `default ${key}`, parameters: { enum: [key] } },
      },
    ]);
    expect(JSON.stringify(t.value)).not.toContain(key);
    expect(t.count).toBe(2);
  });
});

describe('scrubText and URLs (issue #60)', () => {
  it('redacts credentials in URLs and counts each URL', () => {
    const r = scrubText('GET https://u:p4ssw0rd@h.test/x then https://h.test/y?api_key=K123&q=1');
    expect(r.value).toBe(
      'GET https://[REDACTED]@h.test/x then https://h.test/y?api_key=[REDACTED]&q=1',
    );
    expect(r.count).toBe(2);
  });
});

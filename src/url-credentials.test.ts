import { describe, expect, it } from 'vitest';
import { redactUrlCredentials, urlCredentials } from './url-credentials.js';

describe('redactUrlCredentials', () => {
  it.each([
    ['http://user:sk-proj-abc123@127.0.0.1:18610/ok/v1', 'http://[REDACTED]@127.0.0.1:18610/ok/v1'],
    ['https://sk-only-token@api.example.test/v1', 'https://[REDACTED]@api.example.test/v1'],
    ['https://h.test/v1?api_key=SECRET1&model=m', 'https://h.test/v1?api_key=[REDACTED]&model=m'],
    ['https://h.test/v1?model=m&key=AIzaSECRET', 'https://h.test/v1?model=m&key=[REDACTED]'],
    ['https://h.test/v1?token=t0k3n#frag', 'https://h.test/v1?token=[REDACTED]#frag'],
    [
      'https://h.test/v1?ACCESS_TOKEN=x&apiKey=y',
      'https://h.test/v1?ACCESS_TOKEN=[REDACTED]&apiKey=[REDACTED]',
    ],
    ['https://h.test/a?sig=abc&se=2026', 'https://h.test/a?sig=[REDACTED]&se=2026'],
  ])('redacts %s', (url, want) => {
    expect(redactUrlCredentials(url)).toBe(want);
  });

  it('finds URLs inside JSON, prose and error messages and keeps everything else', () => {
    const json = JSON.stringify({ base_url: 'http://u:p4ss@h.test/v1', monkey: 'key=1' });
    expect(redactUrlCredentials(json)).toBe(
      '{"base_url":"http://[REDACTED]@h.test/v1","monkey":"key=1"}',
    );
    expect(JSON.parse(redactUrlCredentials(json))).toEqual({
      base_url: 'http://[REDACTED]@h.test/v1',
      monkey: 'key=1',
    });
    expect(redactUrlCredentials('endpoint "default" (http://a:b@h.test/v1): 401')).toBe(
      'endpoint "default" (http://[REDACTED]@h.test/v1): 401',
    );
  });

  it('leaves URLs without credentials and plain text as they are', () => {
    for (const text of [
      'http://127.0.0.1:8000/v1',
      'https://h.test/v1?model=m&monkey=1&keyboard=2',
      'mailto-like user@host text',
      'no url here: key=1',
      'https://h.test/path/with@sign', // an @ in the path is not user info
    ]) {
      expect(redactUrlCredentials(text)).toBe(text);
    }
  });
});

describe('urlCredentials', () => {
  it('lists the user, password and secret query values of a URL', () => {
    expect(urlCredentials('http://us%3Aer:p%40ss@h.test/v1?api_key=K1&model=m')).toEqual([
      'us:er',
      'p@ss',
      'K1',
    ]);
    expect(urlCredentials('http://h.test/v1')).toEqual([]);
    expect(urlCredentials('not a url')).toEqual([]);
  });
});

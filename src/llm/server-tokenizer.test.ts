import { describe, expect, it } from 'vitest';
import { ServerTokenCounter } from './server-tokenizer.js';
import { tokenizeUrl } from './openai-provider.js';

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('ServerTokenCounter', () => {
  it("answers prepared texts with the server's count, asking once a text", async () => {
    const asked: string[] = [];
    const counter = new ServerTokenCounter((text) => {
      asked.push(text);
      return Promise.resolve(words(text) * 10);
    });
    await Promise.all([counter.prepare(['a b', 'c']), counter.prepare(['a b', '', 'c'])]);
    await counter.prepare(['a b']);
    expect(asked).toEqual(['a b', 'c']);
    expect(counter.countTokens('a b')).toBe(20);
    expect(counter.estimated).toBe(0);
    expect(counter.tokenizer).toBe('server');
  });

  it('counts a text nobody prepared locally and says so in `estimated`', () => {
    const counter = new ServerTokenCounter(() => Promise.reject(new Error('never asked')));
    expect(counter.countTokens('hello world')).toBe(2);
    expect(counter.estimated).toBe(1);
  });

  it('counts a text whose count failed locally, reports it estimated, and asks again next time', async () => {
    let calls = 0;
    const counter = new ServerTokenCounter(() =>
      ++calls === 1 ? Promise.reject(new Error('HTTP 503')) : Promise.resolve(7),
    );
    await counter.prepare(['hello world', 'y']);
    expect(counter.failed).toBe(1);
    // 'hello world' failed (the first ask): its o200k count stands in, and says so.
    expect(counter.countTokens('hello world')).toBe(2);
    expect(counter.countTokens('y')).toBe(7);
    expect(counter.estimated).toBe(1);
    expect(counter.counted).toBe(2);
    await counter.prepare(['hello world']);
    expect(counter.countTokens('hello world')).toBe(7);
    expect(calls).toBe(3);
  });

  it('rethrows an abort: Ctrl-C stops the command, it is no missing count', async () => {
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    const counter = new ServerTokenCounter(() => Promise.reject(abort));
    await expect(counter.prepare(['x'])).rejects.toBe(abort);
  });
});

describe('tokenizeUrl', () => {
  it.each([
    ['http://h:8000/v1', 'http://h:8000/tokenize'],
    ['http://h:8000/v1/', 'http://h:8000/tokenize'],
    ['http://h:8000', 'http://h:8000/tokenize'],
  ])('puts /tokenize at the root of %s', (base, url) => expect(tokenizeUrl(base)).toBe(url));
});

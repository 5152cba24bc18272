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

  it('lets a failed count fail prepare and asks again next time', async () => {
    let calls = 0;
    const counter = new ServerTokenCounter(() =>
      ++calls === 1 ? Promise.reject(new Error('HTTP 503')) : Promise.resolve(7),
    );
    await expect(counter.prepare(['x'])).rejects.toThrow('HTTP 503');
    await counter.prepare(['x']);
    expect(counter.countTokens('x')).toBe(7);
  });
});

describe('tokenizeUrl', () => {
  it.each([
    ['http://h:8000/v1', 'http://h:8000/tokenize'],
    ['http://h:8000/v1/', 'http://h:8000/tokenize'],
    ['http://h:8000', 'http://h:8000/tokenize'],
  ])('puts /tokenize at the root of %s', (base, url) => expect(tokenizeUrl(base)).toBe(url));
});

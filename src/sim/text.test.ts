import { describe, expect, it } from 'vitest';
import { seededRandom } from '../seeded-random.js';
import { containsToken } from './text.js';

/** The definition `containsToken` memoizes (issue #28). */
function byRegExp(text: string, value: string): boolean {
  if (value === '') return false;
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`).test(text);
}

const ALPHABET = ['a', 'b', '1', '2', '_', ' ', '.', '-', '"', ':', '\n', 'é', 'Z'];

function draw(random: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(random() * ALPHABET.length)]!;
  return s;
}

describe('containsToken', () => {
  it('finds a value only as a whole token', () => {
    expect(containsToken('{"id":4821,"x":1}', '4821')).toBe(true);
    expect(containsToken('48213', '4821')).toBe(false);
    expect(containsToken('a_4821', '4821')).toBe(false);
    expect(containsToken('Blue Train.', 'Blue Train')).toBe(true);
    expect(containsToken('xBlue Train', 'Blue Train')).toBe(false);
    expect(containsToken('anything', '')).toBe(false);
  });

  it('answers as the look-around regular expression, on short and indexed long texts', () => {
    const random = seededRandom('contains-token');
    for (let round = 0; round < 300; round++) {
      const text = draw(random, round % 3 === 0 ? 1200 + Math.floor(random() * 400) : 40);
      for (let k = 0; k < 20; k++) {
        // Values cut from the text itself, so most of them occur somewhere.
        const from = Math.floor(random() * text.length);
        const value =
          k % 4 === 0
            ? draw(random, 1 + Math.floor(random() * 3))
            : text.slice(from, from + 1 + Math.floor(random() * 4));
        expect(containsToken(text, value), JSON.stringify([text.length, value])).toBe(
          byRegExp(text, value),
        );
      }
    }
  });
});

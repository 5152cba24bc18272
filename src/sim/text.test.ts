import { describe, expect, it } from 'vitest';
import { seededRandom } from '../seeded-random.js';
import { containsToken, jsonSpans, tryParseJson } from './text.js';

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

/** jsonSpans as it was before it skipped openings JSON.parse must refuse (issue #28). */
function spansByParsing(text: string): unknown[] {
  const found: unknown[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '{' && text[i] !== '[') {
      i++;
      continue;
    }
    let depth = 0;
    let inString = false;
    let end = -1;
    for (let j = i; j < text.length && end === -1; j++) {
      const ch = text[j];
      if (inString) {
        if (ch === '\\') j++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') depth++;
      else if ((ch === '}' || ch === ']') && --depth === 0) end = j;
    }
    const parsed = end === -1 ? undefined : tryParseJson(text.slice(i, end + 1));
    if (parsed !== undefined && typeof parsed === 'object' && parsed !== null) {
      found.push(parsed);
      i = end + 1;
    } else {
      i++;
    }
  }
  return found;
}

describe('jsonSpans', () => {
  const PIECES = [
    '[Turn 3]',
    '[music.login]',
    '{"a": [1, {"b": "x]"}]}',
    '[ 1, 2]',
    '[\n{"c":3}]',
    '{ }',
    '[]',
    '[x]',
    '{x}',
    '{"d": tru}',
    ' ',
    '\n',
    'text ',
    '[ -1]',
    '[ "s"]',
    '{\t"e": null}',
    ']',
    '}',
    '"',
  ];

  it('finds the same spans as parsing at every opening bracket', () => {
    const random = seededRandom('json-spans');
    for (let round = 0; round < 2000; round++) {
      const n = 1 + Math.floor(random() * 12);
      let text = '';
      for (let k = 0; k < n; k++) text += PIECES[Math.floor(random() * PIECES.length)]!;
      expect(jsonSpans(text), text).toEqual(spansByParsing(text));
    }
  });
});

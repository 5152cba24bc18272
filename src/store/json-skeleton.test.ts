import { describe, expect, it } from 'vitest';
import { joinLongStrings, skeletonKeys, splitLongStrings } from './json-skeleton.js';

function splitter() {
  const stored = new Map<string, string>();
  const put = (s: string) => {
    const k = `k${stored.size}`;
    stored.set(k, s);
    return k;
  };
  return { stored, put };
}

describe('JSON skeletons', () => {
  it('store long strings apart and give the same JSON text back', () => {
    const long = `# History Summary\nCOMPLETED:\n- "quoted", tab\t, ü, 😀, lone \ud800\n`.repeat(
      20,
    );
    const value = {
      role: 'assistant',
      content: long,
      tool_calls: [{ id: 'c1', function: { name: 'x', arguments: long.slice(0, 300) } }],
      n: 1.5,
      none: null,
    };
    const text = JSON.stringify(value);
    const { stored, put } = splitter();
    const skeleton = splitLongStrings(value, text, 256, put)!;
    expect(skeleton).toBeDefined();
    expect(skeleton.length).toBeLessThan(200);
    expect(skeletonKeys(skeleton)).toEqual(['k0', 'k1']);
    expect(joinLongStrings(skeleton, (k) => stored.get(k)!)).toBe(text);
  });

  it('leaves a value alone when it has no long string or a string starting with the mark', () => {
    const { put } = splitter();
    const short = { content: 'short' };
    expect(splitLongStrings(short, JSON.stringify(short), 256, put)).toBeUndefined();
    const clash = { a: '\u0000k0', b: 'x'.repeat(300) };
    expect(splitLongStrings(clash, JSON.stringify(clash), 256, put)).toBeUndefined();
  });
});

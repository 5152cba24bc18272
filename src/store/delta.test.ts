import { describe, expect, it } from 'vitest';
import { seededRandom } from '../seeded-random.js';
import {
  applyDelta,
  copyMore,
  diffTokens,
  indexTokens,
  packOps,
  tokenize,
  tokenStarts,
  unpackOps,
} from './delta.js';

/** A summary-like text: numbered fact lines, some with commas. */
function lines(n: number, seed: string): string[] {
  const random = seededRandom(seed);
  return Array.from(
    { length: n },
    (_, i) =>
      `- fact ${i}: amount=${(random() * 1000).toFixed(2)}, id=${Math.floor(random() * 1e6)}`,
  );
}

describe('tokenize', () => {
  it('cuts after newlines and commas and joins back to the text', () => {
    expect(tokenize('a,b\nc')).toEqual(['a,', 'b\n', 'c']);
    expect(tokenize('')).toEqual([]);
    for (const text of ['x', '\n\n,,', 'no separators', lines(30, 'joins').join('\n')]) {
      expect(tokenize(text).join('')).toBe(text);
    }
  });
});

describe('diffTokens and applyDelta', () => {
  it('rebuild the target from the base for random edits', () => {
    const random = seededRandom('delta-edits');
    for (let trial = 0; trial < 200; trial++) {
      const base = lines(5 + Math.floor(random() * 60), `base-${trial}`);
      const target = [...base];
      for (let e = 0; e < 1 + Math.floor(random() * 6); e++) {
        const at = Math.floor(random() * (target.length + 1));
        const kind = random();
        if (kind < 0.4) target.splice(at, 0, `- new ${trial}.${e}, with a comma`);
        else if (kind < 0.7) target.splice(at, 1);
        else target.splice(at, 0, ...target.slice(0, 3)); // repeated lines
      }
      const baseText = base.join('\n');
      const targetText = `Previous summary:\n${target.join('\n')}\n`;
      const { ops } = diffTokens(tokenize(baseText), tokenize(targetText));
      expect(applyDelta(baseText, ops)).toBe(targetText);
    }
  });

  it('writes an appended version as a copy of the base plus the new text', () => {
    const base = lines(40, 'append').join('\n');
    const target = `${base}\n- one more line`;
    const { ops, copiedChars } = diffTokens(tokenize(base), tokenize(target));
    expect(ops).toHaveLength(2);
    expect(copiedChars).toBeGreaterThan(base.length - 40);
    expect(JSON.stringify(ops).length).toBeLessThan(60);
  });

  it('copies nothing from an unrelated base', () => {
    const { ops, copiedChars } = diffTokens(tokenize('alpha\nbeta\n'), tokenize('gamma\ndelta\n'));
    expect(copiedChars).toBe(0);
    expect(ops).toEqual(['gamma\ndelta\n']);
  });

  it('refuses a delta that copies past the end of its base', () => {
    expect(() => applyDelta('a\n', [[0, 3]])).toThrow(/0–3 of a 2-character base/);
  });

  it('copy the rest of a target from further sources, counting characters of all joined', () => {
    const first = lines(30, 'first').join('\n');
    const second = lines(30, 'second').join('\n');
    const target = `${first}\n- new line\n${lines(30, 'second').slice(5, 25).join('\n')}\n- end`;
    const one = diffTokens(tokenize(first), tokenize(target));
    const t2 = tokenize(second);
    const source = {
      tokens: t2,
      index: indexTokens(t2),
      at: tokenStarts(t2),
      offset: first.length,
    };
    const both = copyMore(one.ops, source);
    expect(both.copiedChars).toBeGreaterThan(
      lines(30, 'second').slice(5, 25).join('\n').length - 16,
    );
    expect(applyDelta(first + second, both.ops)).toBe(target);
    expect(both.ops.filter((op) => typeof op === 'string').join('').length).toBeLessThan(30);
  });
});

describe('packOps and unpackOps', () => {
  it('give the operations back, copies before and after the one before them included', () => {
    const ops = [
      [0, 300],
      'new text, with "quotes"\nand ü 😀\n',
      [100, 5],
      [105, 1_000_000],
      '',
      [2 ** 40, 3],
      [0, 1],
    ] as const;
    expect(unpackOps(packOps([...ops] as never))).toEqual(ops);
    expect(unpackOps(packOps([]))).toEqual([]);
  });

  it('refuse bytes that do not add up', () => {
    const bytes = packOps([[0, 10], 'abc']);
    expect(() => unpackOps(bytes.subarray(0, bytes.length - 1))).toThrow(/add up/);
    expect(() => unpackOps(Buffer.of(5, 255))).toThrow(/end early/);
  });
});

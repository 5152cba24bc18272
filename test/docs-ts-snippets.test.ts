import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs script without declarations
import { tsSnippets } from '../scripts/docs-ts-snippets.mjs';

type Snippets = {
  checked: { line: number; file: string; source: string }[];
  unchecked: { line: number; reason: string }[];
};
const extract = tsSnippets as (markdown: string) => Snippets;
/** Three backticks, spelled so that no reader of this file takes them for a template string. */
const FENCE = '\u0060'.repeat(3);

// The type-check itself runs in test/pack.test.ts (scripts/pack-check.mjs), against the packed
// package; this file checks what the extractor hands it.
describe('the ts code blocks of a docs page', () => {
  it('become files with their declared context, and marked ones are left out with their reason', () => {
    const page = [
      'Text.',
      '<!-- ts-context',
      "import type { OpenAiMessage } from 'acon';",
      'declare const conversation: OpenAiMessage[];',
      '-->',
      FENCE + 'ts',
      'await compressor.compress(conversation);',
      FENCE,
      '',
      '<!-- ts-unchecked: shows one option, not a program -->',
      FENCE + 'ts',
      'trigger: { tokens: 4000 }',
      FENCE,
      FENCE + 'ts',
      'const a = 1;',
      FENCE,
      FENCE + 'js',
      'not ts',
      FENCE,
    ].join('\n');
    const { checked, unchecked } = extract(page);
    expect(checked.map((s) => s.line)).toEqual([6, 14]);
    expect(checked[0]!.file).toBe('docs-snippet-6.ts');
    expect(checked[0]!.source).toBe(
      [
        "import type { OpenAiMessage } from 'acon';",
        'declare const conversation: OpenAiMessage[];',
        '// docs snippet at line 6',
        'await compressor.compress(conversation);',
        'export {};',
        '',
      ].join('\n'),
    );
    // A block without a comment before it gets no context.
    expect(checked[1]!.source).toBe('\n// docs snippet at line 14\nconst a = 1;\nexport {};\n');
    expect(unchecked).toEqual([{ line: 11, reason: 'shows one option, not a program' }]);
  });

  it('refuses a block that never closes and a skip without a reason', () => {
    expect(() => extract(`${FENCE}ts\nconst a = 1;\n`)).toThrow(/line 1: .*never closes/);
    expect(() => extract(`<!-- ts-unchecked: -->\n${FENCE}ts\nx\n${FENCE}\n`)).toThrow(
      /needs a reason/,
    );
  });

  it('finds every ts code block of docs/runtime.md', () => {
    const page = readFileSync(resolve(import.meta.dirname, '../docs/runtime.md'), 'utf8');
    const { checked, unchecked } = extract(page);
    const fences = page.split('\n').filter((l) => l.trimEnd() === `${FENCE}ts`).length;
    expect(checked.length + unchecked.length).toBe(fences);
    expect(checked.length).toBeGreaterThanOrEqual(8);
  });
});

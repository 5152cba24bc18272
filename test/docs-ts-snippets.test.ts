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

// The type-check itself runs in test/pack.test.ts (scripts/pack-check.mjs), against the packed
// package; this file checks what the extractor hands it.
describe('the ```ts snippets of a docs page', () => {
  it('become files with their declared context, and marked ones are left out with their reason', () => {
    const page = [
      'Text.',
      '<!-- ts-context',
      "import type { OpenAiMessage } from 'acon';",
      'declare const conversation: OpenAiMessage[];',
      '-->',
      '```ts',
      'await compressor.compress(conversation);',
      '```',
      '',
      '<!-- ts-unchecked: shows one option, not a program -->',
      '```ts',
      'trigger: { tokens: 4000 }',
      '```',
      '```ts',
      'const a = 1;',
      '```',
      '```js',
      'not ts',
      '```',
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
    expect(() => extract('```ts\nconst a = 1;\n')).toThrow(/line 1: .*never closes/);
    expect(() => extract('<!-- ts-unchecked: -->\n```ts\nx\n```\n')).toThrow(/needs a reason/);
  });

  it('finds every ```ts block of docs/runtime.md', () => {
    const page = readFileSync(resolve(import.meta.dirname, '../docs/runtime.md'), 'utf8');
    const { checked, unchecked } = extract(page);
    const fences = page.split('\n').filter((l) => /^```ts\s*$/.test(l)).length;
    expect(checked.length + unchecked.length).toBe(fences);
    expect(checked.length).toBeGreaterThanOrEqual(8);
  });
});

// The ```ts blocks of a Markdown page as files a type-checker can read (issue #59: the snippets of
// docs/runtime.md are type-checked against the packed package, in scripts/pack-check.mjs).
//
// A snippet names what it takes from the reader's own code (`conversation`, the `compressor` of an
// earlier block, the reader's tools) without defining it; an HTML comment right before the block,
// invisible on the rendered page, declares those for the check:
//
//   <!-- ts-context
//   import type { ToolSet } from 'ai';
//   declare const tools: ToolSet;
//   -->
//
// A snippet that is deliberately not a program is marked `<!-- ts-unchecked: why -->` instead.

/**
 * @typedef {{ line: number, file: string, source: string }} CheckedSnippet
 * @typedef {{ line: number, reason: string }} UncheckedSnippet
 */

const FENCE = /^```ts\s*$/;

/**
 * @param {string} markdown
 * @returns {{ checked: CheckedSnippet[], unchecked: UncheckedSnippet[] }}
 */
export function tsSnippets(markdown) {
  const lines = markdown.split('\n');
  /** @type {CheckedSnippet[]} */
  const checked = [];
  /** @type {UncheckedSnippet[]} */
  const unchecked = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i])) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end === -1) throw new Error(`line ${i + 1}: a \`\`\`ts block that never closes`);
    const code = lines.slice(i + 1, end).join('\n');
    const marker = commentBefore(lines, i);
    const line = i + 1;
    const skip = /^<!--\s*ts-unchecked:\s*([\s\S]*?)\s*-->$/.exec(marker ?? '');
    if (skip) {
      if (skip[1] === '') throw new Error(`line ${line}: ts-unchecked needs a reason`);
      unchecked.push({ line, reason: skip[1] });
    } else {
      const context = /^<!--\s*ts-context\n([\s\S]*?)\n-->$/.exec(marker ?? '')?.[1] ?? '';
      // `export {}` makes the file a module, so top-level await and the snippets' own names stay
      // in the file.
      const source = `${context}\n// docs snippet at line ${line}\n${code}\nexport {};\n`;
      checked.push({ line, file: `docs-snippet-${line}.ts`, source });
    }
    i = end;
  }
  return { checked, unchecked };
}

/** The HTML comment that ends on the line right before line `at`, or null. */
function commentBefore(lines, at) {
  const last = at - 1;
  if (last < 0 || !lines[last].trimEnd().endsWith('-->')) return null;
  for (let j = last; j >= 0; j--) {
    if (lines[j].trimStart().startsWith('<!--'))
      return lines
        .slice(j, last + 1)
        .join('\n')
        .trim();
  }
  return null;
}

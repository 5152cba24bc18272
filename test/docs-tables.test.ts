import { describe, expect, it } from 'vitest';
import {
  DOC_TABLES,
  markedBlocks,
  readPage,
  rewrite,
  type DocTable,
} from '../scripts/docs/doc-tables.js';

/** Issue #58: the docs' generated tables are what the code prints (`npm run docs:tables`). */
describe('docs generated tables', () => {
  it('every registered table has its markers in its page, and every marker a table', () => {
    for (const t of DOC_TABLES) {
      expect(markedBlocks(readPage(t.page)).has(t.name), `${t.page}: ${t.name}`).toBe(true);
    }
    const names = new Set(DOC_TABLES.map((t) => t.name));
    for (const page of ['README.md', 'docs/sim.md', 'docs/benchmarks.md', 'docs/results.md']) {
      for (const name of markedBlocks(readPage(page)).keys()) expect(names).toContain(name);
    }
  });

  it('the pages hold what the code prints now (run npm run docs:tables after a change)', () => {
    for (const page of new Set(DOC_TABLES.map((t) => t.page))) {
      const current = readPage(page);
      expect(rewrite(current, DOC_TABLES), `${page} is stale: run npm run docs:tables`).toBe(
        current,
      );
    }
  });

  it('rewrites only between the markers, and catches a drifted table', () => {
    const table: DocTable = { name: 'x', page: 'x.md', render: () => '| a |\n| --- |' };
    const page = 'before\n<!-- generated: x -->\n| old |\n<!-- end -->\nafter\n';
    expect(rewrite(page, [table])).toBe(
      'before\n<!-- generated: x -->\n| a |\n| --- |\n<!-- end -->\nafter\n',
    );
    const fresh = rewrite(page, [table]);
    expect(rewrite(fresh, [table])).toBe(fresh);
  });
});

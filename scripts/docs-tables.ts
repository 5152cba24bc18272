// Rewrites the docs' generated tables (scripts/docs/doc-tables.ts); `--check` only compares and
// exits 1 when a page is stale.
//   npm run docs:tables            regenerate
//   npm run docs:tables -- --check compare
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOC_TABLES, readPage, REPO, rewrite } from './docs/doc-tables.js';

const check = process.argv.includes('--check');
let stale = 0;
for (const page of new Set(DOC_TABLES.map((t) => t.page))) {
  const current = readPage(page);
  const next = rewrite(current, DOC_TABLES);
  if (next === current) continue;
  if (check) {
    console.error(`${page} is stale: run npm run docs:tables`);
    stale += 1;
  } else {
    writeFileSync(join(REPO, page), next);
    console.log(`wrote ${page}`);
  }
}
if (stale > 0) process.exit(1);

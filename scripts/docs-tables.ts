// Rewrites the docs' generated blocks (scripts/docs/doc-tables.ts) from the code and from the
// measured records in docs/measured/; `--check` only compares and exits 1 when a page is stale;
// `--measure NAME|all` first runs those commands again and rewrites their records.
//   npm run docs:tables                   regenerate
//   npm run docs:tables -- --check        compare
//   npm run docs:tables -- --measure all  measure every record again (about an hour), then regenerate
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DOC_TABLES, readPage, REPO, rewrite } from './docs/doc-tables.js';
import { measureNamed } from './docs/measure.js';

const { values } = parseArgs({
  options: { check: { type: 'boolean', default: false }, measure: { type: 'string' } },
});

if (values.measure !== undefined) await measureNamed(values.measure);

let stale = 0;
for (const page of new Set(DOC_TABLES.map((t) => t.page))) {
  const current = readPage(page);
  const next = rewrite(current, DOC_TABLES);
  if (next === current) continue;
  if (values.check) {
    console.error(`${page} is stale: run npm run docs:tables`);
    stale += 1;
  } else {
    writeFileSync(join(REPO, page), next);
    console.log(`wrote ${page}`);
  }
}
if (stale > 0) process.exit(1);

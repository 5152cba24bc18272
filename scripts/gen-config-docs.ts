// Writes docs/configuration.md from the config schema and the `acon init` template's comments
// (scripts/docs/config-docs.ts). `--check` only compares and exits 1 when the page is stale.
//   npm run docs:config            regenerate
//   npm run docs:config -- --check compare
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configSections, renderConfigDocs } from './docs/config-docs.js';

const file = resolve(import.meta.dirname, '../docs/configuration.md');
const { missing } = configSections();
if (missing.length > 0) {
  console.error(
    `no description for ${missing.join(', ')}: add a comment to src/config/acon.config.template.yaml or .describe() in src/config/schema.ts`,
  );
  process.exit(1);
}
const text = renderConfigDocs();
if (process.argv.includes('--check')) {
  const current = readFileSync(file, 'utf8');
  if (current !== text) {
    console.error(`${file} is stale: run npm run docs:config`);
    process.exit(1);
  }
  console.log(`${file} is up to date`);
} else {
  writeFileSync(file, text);
  console.log(`wrote ${file}`);
}

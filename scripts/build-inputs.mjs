#!/usr/bin/env node
// Whether dist/ was built from the sources as they are now (issue #58). `npm ci` runs `prepare`,
// which builds; the first `npx acon …` in a checkout links the checkout into npx's cache and runs
// `prepare` again, which used to mean a second full `tsc` (minutes on a loaded 2-core machine)
// with nothing printed but npm's spinner. `build` ends by writing a hash of its inputs next to its
// output; `prepare` compares it and skips the build when nothing changed.
//
//   node scripts/build-inputs.mjs write   record the inputs of the build that just finished
//   node scripts/build-inputs.mjs fresh   exit 0 when dist/ matches them, 1 when it must be built
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STAMP = 'dist/.build-inputs.json';

// Everything the build reads: the compiled sources, the compiler's settings and version (through
// the lock file), the task files that scripts/task-yaml-index.mjs indexes, and that script.
const INPUT_DIRS = [
  ['src', /\.(ts|mts|cts|json)$/],
  ['tasks', /\.ya?ml$/],
];
const INPUT_FILES = [
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
  'scripts/task-yaml-index.mjs',
];
// What must exist for dist/ to be usable at all, whatever the stamp says.
const OUTPUTS = ['dist/cli/main.js', 'dist/runtime/index.js', 'dist/task-yaml-index.json'];

function listFiles(root, dir, pattern) {
  const start = join(root, dir);
  if (!existsSync(start)) return [];
  const files = [];
  for (const entry of readdirSync(start, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !pattern.test(entry.name)) continue;
    files.push(relative(root, join(entry.parentPath ?? entry.path, entry.name)));
  }
  return files;
}

/** sha256 over the path and the content of every build input, in a fixed order. */
export function buildInputsHash(root) {
  const files = [
    ...INPUT_DIRS.flatMap(([dir, pattern]) => listFiles(root, dir, pattern)),
    ...INPUT_FILES.filter((file) => existsSync(join(root, file))),
  ]
    .map((file) => file.split('\\').join('/'))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file + '\0');
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return { hash: hash.digest('hex'), files: files.length };
}

export function writeStamp(root) {
  const inputs = buildInputsHash(root);
  writeFileSync(join(root, STAMP), JSON.stringify(inputs) + '\n');
  return inputs;
}

/** Why dist/ must be built, or null when it matches the sources. */
export function staleReason(root) {
  const missing = OUTPUTS.find((file) => !existsSync(join(root, file)));
  if (missing) return `${missing} is missing`;
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(join(root, STAMP), 'utf8'));
  } catch {
    return `${STAMP} is missing`;
  }
  return recorded.hash === buildInputsHash(root).hash
    ? null
    : 'the sources changed since the last build';
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const mode = process.argv[2];
  if (mode === 'write') {
    writeStamp(root);
  } else if (mode === 'fresh') {
    const reason = staleReason(root);
    if (reason) {
      console.log(`acon: building dist/ (${reason})`);
      process.exit(1);
    }
    console.log('acon: dist/ is up to date with the sources, build skipped');
  } else {
    console.error('usage: node scripts/build-inputs.mjs write|fresh');
    process.exit(2);
  }
}

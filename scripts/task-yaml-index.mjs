#!/usr/bin/env node
// Part of `npm run build` (issue #28): parses every shipped task file (tasks/*/*.yaml) once with the
// same code acon uses and writes dist/task-yaml-index.json, sha256 of the file's text → the JSON of
// its value. readTaskYaml answers a file with a known text from it instead of parsing the YAML
// again (about 1 s of every CLI process's start). A file whose value JSON cannot carry exactly
// (a date, a non-finite number) is left out and stays parsed at run time.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { parseTaskYamlText, textHash, TASK_YAML_INDEX } from '../dist/bench/task-yaml.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tasks = join(root, 'tasks');
const entries = {};
let skipped = 0;
for (const bench of readdirSync(tasks, { withFileTypes: true })) {
  if (!bench.isDirectory()) continue;
  const dir = join(tasks, bench.name);
  for (const name of readdirSync(dir)
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()) {
    const text = readFileSync(join(dir, name), 'utf8');
    let value;
    try {
      value = parseTaskYamlText(name, text);
    } catch {
      skipped++;
      continue;
    }
    const json = JSON.stringify(value);
    if (json === undefined || !isDeepStrictEqual(JSON.parse(json), value)) {
      skipped++;
      continue;
    }
    entries[textHash(text)] = json;
  }
}
writeFileSync(TASK_YAML_INDEX, JSON.stringify(entries));
if (skipped > 0) process.stderr.write(`task-yaml-index: ${skipped} file(s) left to the parser\n`);

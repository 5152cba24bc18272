/**
 * Bytes the store keeps per agent step against the new content of each step (issue #16).
 *
 * New content of a step: its assistant message and observation messages (as JSON) plus the
 * outputs of the compressions it ran. The whole prompt of a step is what a store that keeps
 * every prompt would write (the layout before content-addressed storage wrote it twice: in the
 * step and again in its LLM call). Prints the figures and their ratios; asserts nothing.
 *
 *   npm run bench:store-bytes                      # a fresh `acon compare` on 20 dev tasks
 *   npm run bench:store-bytes -- --db runs/acon.db # an existing database (read only)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openRunStore } from '../../src/store/index.js';

const { values } = parseArgs({
  options: { db: { type: 'string' }, tasks: { type: 'string', default: '20' } },
});

const ROOT = resolve(import.meta.dirname, '../..');

function freshDatabase(): string {
  const dir = mkdtempSync(join(tmpdir(), 'acon-bench-store-bytes-'));
  const db = join(dir, 'acon.db');
  const args = ['compare', '--bench', 'apptown', '--split', 'dev', '--max-tasks', values.tasks];
  args.push('--strategies', 'raw,acon', '--db', db, '--json');
  console.log(`acon ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'acon.js'), ...args], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`acon compare exited ${r.status}:\n${r.stderr}`);
  return db;
}

const file = values.db ?? freshDatabase();
const fileBytes = (f: string) => (existsSync(f) ? statSync(f).size : 0);
const onDisk = fileBytes(file) + fileBytes(`${file}-wal`);
const store = openRunStore(file, { mode: 'read' });

let rollouts = 0;
let steps = 0;
let newContent = 0;
let wholePrompts = 0;
for (const run of store.listRuns()) {
  for (const r of store.rollouts(run.id)) {
    rollouts++;
    const prompts = store.prompts(r.id);
    for (const [i, s] of store.stepRecords(r.id).entries()) {
      steps++;
      newContent += JSON.stringify(s.assistant).length + JSON.stringify(s.observations).length;
      wholePrompts += JSON.stringify(prompts[i]).length;
    }
    for (const e of store.events(r.id)) newContent += e.output.length;
  }
}
const { storedBytes } = store.storageStats();
store.close();

const perStep = (n: number) => `${Math.round(n / steps).toLocaleString('en-US')} B`;
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
console.log(`${file}: ${mb(onDisk)} on disk; ${rollouts} rollouts, ${steps} agent steps`);
console.log(
  `per agent step: stored=${perStep(onDisk)} (texts ${perStep(storedBytes)}, rows and indexes ${perStep(onDisk - storedBytes)}) new_content=${perStep(newContent)} whole_prompt=${perStep(wholePrompts)}`,
);
console.log(
  `stored/new_content=${(onDisk / newContent).toFixed(2)} stored/whole_prompt=${(onDisk / wholePrompts).toFixed(3)}`,
);

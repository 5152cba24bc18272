import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAcon, tempDir, type CliResult } from './cli.js';
import { SHORT_TASKS_ENV } from './env.js';

/**
 * One short `acon optimize --bench apptown` per test run, shared by the test files that need an
 * optimized folder (issue #28: cli-e2e, proxy-cli and report-browser each ran their own, 25 s of
 * CPU apiece on a 2-core machine). It is a real end-to-end run, `bin/acon.js` spawned in a fresh
 * folder like any other CLI test; test/cli-e2e.test.ts asserts on its output, the others copy
 * the folder it leaves (runs/acon.db, guidelines/) and work in their copy.
 *
 * The first file to ask builds it; the others wait for its result file. The folder lives under
 * the run's temporary folder (test/helpers/global-tmp.ts sets TMPDIR for the workers), so every
 * `vitest run` builds its own and removes it at the end.
 */

/** Over the short tasks (test/helpers/env.ts); T_hist 2048 so the history gets folded. */
export const SHARED_OPTIMIZE_ENV = { ...SHORT_TASKS_ENV, ACON_CONTEXT__T_HIST: '2048' };
export const SHARED_OPTIMIZE_ARGS = ['optimize', '--bench', 'apptown'];

export type SharedOptimize = {
  /** What `acon optimize` printed and returned. */
  result: CliResult;
  /** The folder it ran in: read only, copy it (copyOfSharedOptimize) to run commands there. */
  dir: string;
};

let pending: Promise<SharedOptimize> | undefined;

/** The shared optimize run: started by the first caller of the test run, awaited by the rest. */
export function sharedOptimize(): Promise<SharedOptimize> {
  pending ??= buildOrWait();
  return pending;
}

/** A fresh folder holding a copy of the shared optimize run's folder, and that run's output. */
export async function copyOfSharedOptimize(): Promise<{ cwd: string; result: CliResult }> {
  const { result, dir } = await sharedOptimize();
  const cwd = tempDir();
  cpSync(dir, cwd, { recursive: true });
  return { cwd, result };
}

async function buildOrWait(): Promise<SharedOptimize> {
  const root = join(tmpdir(), 'acon-shared-optimize');
  const dir = join(root, 'work');
  const done = join(root, 'result.json');
  try {
    // mkdir is atomic: exactly one test file of the run wins and builds.
    mkdirSync(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { result: await resultFile(root, done), dir };
  }
  mkdirSync(dir);
  let result: CliResult;
  try {
    result = await runAcon(SHARED_OPTIMIZE_ARGS, { cwd: dir, env: SHARED_OPTIMIZE_ENV });
  } catch (err) {
    // A spawn that failed is every waiter's failure too, not a hang.
    result = { code: null, signal: null, stdout: '', stderr: `spawn failed: ${String(err)}` };
  }
  writeFileSync(`${done}.tmp`, JSON.stringify(result));
  renameSync(`${done}.tmp`, done);
  return { result, dir };
}

/** The builder's result, once its file appears (renamed into place whole). */
function resultFile(root: string, done: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const readIfThere = () => {
      if (!existsSync(done)) return;
      watcher.close();
      resolve(JSON.parse(readFileSync(done, 'utf8')) as CliResult);
    };
    const watcher = watch(root, readIfThere);
    watcher.on('error', reject);
    // Written before the watcher started.
    readIfThere();
  });
}

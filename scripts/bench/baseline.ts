/**
 * What the benchmarks that compare this checkout with an older commit share (issue #28): the
 * machine's speed changes from day to day, so a figure is compared with the same figure of a
 * pinned build measured in the same run, and with the user-space instructions, which do not
 * depend on the speed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** Whether `perf stat` can count this user's instructions here (installed, and allowed). */
export const PERF = (() => {
  try {
    execFileSync('perf', ['stat', '-x,', '-e', 'instructions:u', 'true'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
})();

/** The command line that runs `command` under `perf stat`, its CSV going to `perfFile`. */
export function underPerf(command: string[], perfFile: string): string[] {
  return ['perf', 'stat', '-x,', '-e', 'instructions:u', '-o', perfFile, '--', ...command];
}

export type Finished = { code: number | null; stdout: string; stderr: string; wallMs: number };

/**
 * Runs `command` in `cwd` with `env` added to `base` (this process's environment unless given),
 * collecting its output.
 */
export function runCollecting(
  [command, ...args]: string[],
  cwd: string,
  env: Record<string, string>,
  base: NodeJS.ProcessEnv = process.env,
): Promise<Finished> {
  const started = process.hrtime.bigint();
  return new Promise((done, fail) => {
    const child = spawn(command!, args, {
      cwd,
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      done({ code, stdout, stderr, wallMs });
    });
  });
}

/** The instructions:u count of a perf stat CSV file, or null when perf could not count them. */
export function instructions(perfFile: string): number | null {
  const line = readFileSync(perfFile, 'utf8')
    .split('\n')
    .find((l) => l.includes('instructions'));
  const n = Number(line?.split(',')[0]);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** The load averages, printed with every figure: the machine is shared. */
export const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** `   ×0.451 of the baseline`, or nothing without a baseline figure. */
export const ratio = (now: number | null, then: number | null | undefined) =>
  now !== null && then ? `   ×${(now / then).toFixed(3)} of the baseline` : '';

/**
 * Builds commit `ref` in a new git worktree `dir/baseline` with this checkout's node_modules (the
 * dependencies must be the same: a commit whose package-lock.json differs is refused), and
 * returns the worktree. `removeBaseline` takes it away again.
 */
export function buildBaseline(ref: string, dir: string): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' }).trim();
  let commit: string;
  try {
    commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  } catch {
    throw new Error(`--baseline ${ref}: no such commit here; give a commit, tag or branch`);
  }
  const differing = lockDifferences(
    git('show', `${commit}:package-lock.json`),
    readFileSync(join(ROOT, 'package-lock.json'), 'utf8'),
  );
  if (differing.length > 0) {
    throw new Error(
      `${ref} has other dependencies (${differing.slice(0, 3).join(', ')}): measure it in its own checkout`,
    );
  }
  const tree = join(dir, 'baseline');
  git('worktree', 'add', '--detach', tree, commit);
  execFileSync('ln', ['-s', join(ROOT, 'node_modules'), join(tree, 'node_modules')]);
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', '.bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: tree, stdio: 'inherit' },
  );
  const index = join(tree, 'scripts', 'task-yaml-index.mjs');
  if (existsSync(index)) execFileSync(process.execPath, [index], { cwd: tree, stdio: 'inherit' });
  return tree;
}

/**
 * The packages the baseline's lock file pins at another version than ours, or lacks in ours. A
 * lock that only adds packages (a new dependency the baseline never loads) is no difference: the
 * baseline runs on this checkout's node_modules with every package it needs at its own version.
 * Dev-only packages (`dev: true`: test frameworks, the agent SDKs the adapters are tested with)
 * are no difference either: the benchmarks run acon's CLI, which loads none of them (issue #58's
 * `overrides` dropped the copies of openai 7 nested under @openai/agents).
 */
export function lockDifferences(baselineLock: string, ourLock: string): string[] {
  type Lock = { packages?: Record<string, { version?: string; dev?: boolean }> };
  const theirs = (JSON.parse(baselineLock) as Lock).packages ?? {};
  const ours = (JSON.parse(ourLock) as Lock).packages ?? {};
  return Object.entries(theirs)
    .filter(([path, p]) => path !== '' && p.dev !== true)
    .filter(([path, p]) => ours[path]?.version !== p.version)
    .map(([path, p]) => `${path.replace(/^node_modules\//, '')}@${p.version ?? '?'}`);
}

export function removeBaseline(dir: string): void {
  const tree = join(dir, 'baseline');
  if (!existsSync(tree)) return;
  execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT });
}

/**
 * What the README's first command costs (issue #28): runs `acon optimize --bench apptown` in a
 * fresh temporary folder, as a new user would after `npm ci`, and prints its wall time, CPU time
 * (user + system), peak RSS and the size of the database it leaves. Prints figures; asserts nothing.
 *
 * The figures come from inside the acon process itself: a module preloaded with `--import` writes
 * `process.cpuUsage()` and `process.resourceUsage().maxRSS` when the process exits, so nothing of
 * this script or of npx is counted. The machine is shared: compare CPU time, not wall time, and
 * read the load printed with every figure.
 *
 *   npm run bench:optimize-cost                         # the README command
 *   npm run bench:optimize-cost -- --keep               # keep the folder (database, stdout)
 *   npm run bench:optimize-cost -- --cpu-prof           # also write a V8 CPU profile there
 *   npm run bench:optimize-cost -- -- --max-tasks 2     # extra acon flags after a second --
 *
 * Before the optimize it also prints the start-up CPU of `acon --version` and `acon --help`.
 *
 * stdout of acon is saved as `stdout.txt` in the folder: two runs that print the same tables give
 * the same `tables sha256` line (timing columns aside; see `stableTables`).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const { values, positionals } = parseArgs({
  options: {
    keep: { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
  },
  allowPositionals: true,
});

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'acon.js');

/** Written by the preloaded module when the acon process exits. */
const UsageSchema = z.object({ userUs: z.number(), systemUs: z.number(), maxRssKb: z.number() });

const REPORTER = `
import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  const cpu = process.cpuUsage();
  const usage = { userUs: cpu.user, systemUs: cpu.system, maxRssKb: process.resourceUsage().maxRSS };
  writeFileSync(process.env.ACON_BENCH_USAGE_FILE, JSON.stringify(usage));
});
`;

/**
 * The printed tables without what depends on the machine: durations (`1:23`, `12.3 s`, `845 ms`)
 * and run ids. What is left must not change when only the speed of acon changed.
 */
function stableTables(stdout: string): string {
  return stdout
    .replace(/\b\d+(\.\d+)?\s?(ms|s|min|h)\b/g, '<t>')
    .replace(/\b\d+:\d\d(:\d\d)?\b/g, '<t>')
    .replace(/\brun-\d{8}-\d{6}-\w+/g, '<run>')
    .replace(/\b[0-9a-f]{8,}\b/g, '<id>');
}

function fileBytes(file: string): number {
  return existsSync(file) ? statSync(file).size : 0;
}

// Decimal MB, as the issues state their bounds, with MiB beside it so neither is mistaken for the other.
const mb = (bytes: number) =>
  `${(bytes / 1e6).toFixed(1)} MB (${(bytes / 1024 / 1024).toFixed(1)} MiB)`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

type AconRun = { code: number | null; stdout: string; stderr: string; wallMs: number };

/** Runs acon with `nodeArgs` in `dir`; its usage lands in `usageFile` (see REPORTER). */
async function runAcon(
  nodeArgs: string[],
  acon: string[],
  dir: string,
  usageFile: string,
): Promise<AconRun> {
  const started = process.hrtime.bigint();
  const { code, stdout, stderr } = await new Promise<Omit<AconRun, 'wallMs'>>((done, fail) => {
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...acon], {
      cwd: dir,
      env: { ...process.env, ACON_BENCH_USAGE_FILE: usageFile, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', fail);
    child.on('close', (c) => done({ code: c, stdout: out, stderr: err }));
  });
  return { code, stdout, stderr, wallMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

const STARTUP_RUNS = 5;

/**
 * What every acon command pays before it does anything (issue #28): CPU of `acon --version` and
 * `acon --help`, which load only the command definitions, averaged over a few runs.
 */
async function startupCpu(nodeArgs: string[], dir: string, usageFile: string) {
  const figures: { args: string; cpuMs: number }[] = [];
  for (const args of [['--version'], ['--help']]) {
    let totalUs = 0;
    for (let i = 0; i < STARTUP_RUNS; i++) {
      const run = await runAcon(nodeArgs, args, dir, usageFile);
      if (run.code !== 0) throw new Error(`acon ${args.join(' ')} exited with ${run.code}`);
      const usage = UsageSchema.parse(JSON.parse(readFileSync(usageFile, 'utf8')));
      totalUs += usage.userUs + usage.systemUs;
    }
    figures.push({ args: args.join(' '), cpuMs: totalUs / STARTUP_RUNS / 1000 });
  }
  return figures;
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error(
      'dist/ is missing: run `npm run build` first (npm run bench:optimize-cost does)',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'acon-bench-optimize-'));
  const reporter = join(dir, 'usage-reporter.mjs');
  const usageFile = join(dir, 'usage.json');
  writeFileSync(reporter, REPORTER);
  const acon = ['optimize', '--bench', 'apptown', ...positionals];
  const nodeArgs = ['--import', reporter];
  if (values['cpu-prof']) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  // BENCH_NODE_ARGS='--perf-basic-prof-only-functions' (for `perf record -p`), as in bench:throughput.
  nodeArgs.push(...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean));
  console.log(`acon ${acon.join(' ')}   (in ${dir})`);
  console.log(`load before: ${load()}`);

  const startup = await startupCpu(['--import', reporter], dir, usageFile);
  const { code, stdout, stderr, wallMs } = await runAcon(nodeArgs, acon, dir, usageFile);
  writeFileSync(join(dir, 'stdout.txt'), stdout);
  writeFileSync(join(dir, 'stderr.txt'), stderr);
  if (code !== 0) {
    process.stderr.write(stderr.slice(-4000));
    throw new Error(`acon exited with ${code}; output kept in ${dir}`);
  }

  const usage = UsageSchema.parse(JSON.parse(readFileSync(usageFile, 'utf8')));
  const db = join(dir, 'runs', 'acon.db');
  const dbBytes = fileBytes(db);
  const walBytes = fileBytes(`${db}-wal`);
  const cpuS = (usage.userUs + usage.systemUs) / 1e6;
  const tables = createHash('sha256').update(stableTables(stdout)).digest('hex').slice(0, 16);

  console.log(`load after:  ${load()}`);
  console.log(`wall time:   ${(wallMs / 1000).toFixed(1)} s`);
  console.log(
    `CPU time:    ${cpuS.toFixed(1)} s (user ${(usage.userUs / 1e6).toFixed(1)} s, system ${(usage.systemUs / 1e6).toFixed(1)} s)`,
  );
  console.log(`peak RSS:    ${mb(usage.maxRssKb * 1024)}`);
  console.log(`database:    ${mb(dbBytes)}${walBytes > 0 ? ` (+ ${mb(walBytes)} -wal)` : ''}`);
  console.log(`tables sha256: ${tables}  (stdout with durations and ids masked)`);
  console.log(
    `start-up:    ${startup.map(({ args, cpuMs }) => `acon ${args} ${cpuMs.toFixed(0)} ms`).join(', ')} CPU (mean of ${STARTUP_RUNS})`,
  );
  if (values.keep || values['cpu-prof']) console.log(`kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

await main();

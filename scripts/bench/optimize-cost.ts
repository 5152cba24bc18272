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
 * The speed of the machine varies (the same build took 57 s and 136 s of CPU on the machines of
 * two sessions), so a figure alone cannot say whether a change made acon faster. Two figures that
 * do not depend on it:
 * - `--baseline REF` builds that commit in a temporary git worktree (sharing this node_modules)
 *   and runs the same optimize with it first, then prints each figure of this build as a ratio to
 *   the baseline's, measured in the same run;
 * - where `perf` is installed, the user-space instructions of each run (`perf stat -e
 *   instructions:u`), which stay within about 1% from run to run and machine to machine.
 *
 *   npm run bench:optimize-cost -- --baseline 59f1a78   # ratios to the build scaling.md measured
 *   npm run bench:optimize-cost -- --baseline 6911c85 --rounds 3
 *
 * `--rounds N` repeats the pair N times, interleaved (baseline, this build, baseline, …), and
 * ends with each round's CPU and wall ratio and their medians: on this machine one pair's CPU
 * ratio moved from ×0.42 to ×0.35 between two days (docs/scaling.md), so one pair decides little.
 *
 * stdout of acon is saved as `run/stdout.txt` in the folder (the baseline's in `baseline-run/`):
 * two runs that print the same tables give the same `tables sha256` line (timing columns aside;
 * see `stableTables`).
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  buildBaseline,
  instructions,
  load,
  PERF,
  ratio,
  removeBaseline,
  ROOT,
  runCollecting,
  underPerf,
  type Finished,
} from './baseline.js';
import { median } from '../../src/metrics/metrics.js';
import { wholeOption } from './whole-option.js';

const { values, positionals } = parseArgs({
  options: {
    keep: { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '1' },
  },
  allowPositionals: true,
});

const BIN = join(ROOT, 'bin', 'acon.js');

const ROUNDS = wholeOption('rounds', values.rounds);

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

/**
 * Runs acon (`bin`) with `nodeArgs` in `dir`; its usage lands in `usageFile` (see REPORTER), and
 * with `perfFile` its user-space instructions in that file (perf stat's CSV).
 */
async function runAcon(
  bin: string,
  nodeArgs: string[],
  acon: string[],
  dir: string,
  usageFile: string,
  perfFile?: string,
): Promise<Finished> {
  const node = [process.execPath, ...nodeArgs, bin, ...acon];
  const env = { ACON_BENCH_USAGE_FILE: usageFile, NO_COLOR: '1' };
  return runCollecting(perfFile ? underPerf(node, perfFile) : node, dir, env);
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
      const run = await runAcon(BIN, nodeArgs, args, dir, usageFile);
      if (run.code !== 0) throw new Error(`acon ${args.join(' ')} exited with ${run.code}`);
      const usage = UsageSchema.parse(JSON.parse(readFileSync(usageFile, 'utf8')));
      totalUs += usage.userUs + usage.systemUs;
    }
    figures.push({ args: args.join(' '), cpuMs: totalUs / STARTUP_RUNS / 1000 });
  }
  return figures;
}

/** What one optimize cost. */
type Figures = {
  wallS: number;
  cpuS: number;
  userS: number;
  systemS: number;
  rssBytes: number;
  dbBytes: number;
  walBytes: number;
  instructions: number | null;
  tables: string;
};

/** Runs the README optimize with `bin` in a new folder under `dir`; its stdout stays there. */
async function optimize(bin: string, dir: string, reporter: string): Promise<Figures> {
  const usageFile = join(dir, 'usage.json');
  const perfFile = PERF ? join(dir, 'perf.csv') : undefined;
  const acon = ['optimize', '--bench', 'apptown', ...positionals];
  const nodeArgs = ['--import', reporter];
  if (values['cpu-prof']) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  // BENCH_NODE_ARGS='--perf-basic-prof-only-functions' (for `perf record -p`), as in bench:throughput.
  nodeArgs.push(...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean));
  const { code, stdout, stderr, wallMs } = await runAcon(
    bin,
    nodeArgs,
    acon,
    dir,
    usageFile,
    perfFile,
  );
  writeFileSync(join(dir, 'stdout.txt'), stdout);
  writeFileSync(join(dir, 'stderr.txt'), stderr);
  if (code !== 0) {
    process.stderr.write(stderr.slice(-4000));
    throw new Error(`acon exited with ${code}; output kept in ${dir}`);
  }
  const usage = UsageSchema.parse(JSON.parse(readFileSync(usageFile, 'utf8')));
  const db = join(dir, 'runs', 'acon.db');
  return {
    wallS: wallMs / 1000,
    cpuS: (usage.userUs + usage.systemUs) / 1e6,
    userS: usage.userUs / 1e6,
    systemS: usage.systemUs / 1e6,
    rssBytes: usage.maxRssKb * 1024,
    dbBytes: fileBytes(db),
    walBytes: fileBytes(`${db}-wal`),
    instructions: perfFile ? instructions(perfFile) : null,
    tables: createHash('sha256').update(stableTables(stdout)).digest('hex').slice(0, 16),
  };
}

function print(f: Figures, base?: Figures): void {
  console.log(`wall time:   ${f.wallS.toFixed(1)} s${ratio(f.wallS, base?.wallS)}`);
  console.log(
    `CPU time:    ${f.cpuS.toFixed(1)} s (user ${f.userS.toFixed(1)} s, system ${f.systemS.toFixed(1)} s)${ratio(f.cpuS, base?.cpuS)}`,
  );
  if (f.instructions !== null) {
    const e9 = (f.instructions / 1e9).toFixed(1);
    console.log(`user instructions: ${e9}e9${ratio(f.instructions, base?.instructions)}`);
  }
  console.log(`peak RSS:    ${mb(f.rssBytes)}${ratio(f.rssBytes, base?.rssBytes)}`);
  const wal = f.walBytes > 0 ? ` (+ ${mb(f.walBytes)} -wal)` : '';
  console.log(`database:    ${mb(f.dbBytes)}${wal}`);
  console.log(`tables sha256: ${f.tables}  (stdout with durations and ids masked)`);
}

/** Each round's ratio of this build to the baseline, and their median; tables that differ. */
function printRounds(pairs: Pair[]): void {
  const hashes = new Set(pairs.map((p) => p.figures.tables));
  if (hashes.size > 1) console.log(`\ntables differ between rounds: ${[...hashes].join(', ')}`);
  const measured = pairs.filter((p) => p.base !== undefined);
  if (measured.length === 0) return;
  for (const [label, of] of [
    ['CPU', (f: Figures) => f.cpuS],
    ['wall', (f: Figures) => f.wallS],
  ] as const) {
    const ratios = measured.map((p) => of(p.figures) / of(p.base!));
    const each = ratios.map((r) => `×${r.toFixed(3)}`).join(', ');
    console.log(`${label} ratios:`.padEnd(13) + `${each}; median ×${median(ratios).toFixed(3)}`);
  }
}

type Pair = { base?: Figures; figures: Figures };

/** One round: the baseline's optimize (given `baseBin`), then this build's, each printed. */
async function runRound(
  round: number,
  dir: string,
  reporter: string,
  baseBin: string | undefined,
): Promise<Pair> {
  // Round 1 keeps the folder names the header names (run/stdout.txt).
  const suffix = round === 1 ? '' : `-${round}`;
  if (ROUNDS > 1) console.log(`\nround ${round} of ${ROUNDS}`);
  let base: Figures | undefined;
  if (baseBin) {
    const baseDir = join(dir, `baseline-run${suffix}`);
    mkdirSync(baseDir);
    console.log(`\nbaseline ${values.baseline}   load before: ${load()}`);
    base = await optimize(baseBin, baseDir, reporter);
    print(base);
    console.log(`load after:  ${load()}\n\nthis build`);
  }
  console.log(`load before: ${load()}`);
  const startup =
    round === 1 ? await startupCpu(['--import', reporter], dir, join(dir, 'usage.json')) : null;
  const runDir = join(dir, `run${suffix}`);
  mkdirSync(runDir);
  const figures = await optimize(BIN, runDir, reporter);
  console.log(`load after:  ${load()}`);
  print(figures, base);
  if (startup) {
    console.log(
      `start-up:    ${startup.map(({ args, cpuMs }) => `acon ${args} ${cpuMs.toFixed(0)} ms`).join(', ')} CPU (mean of ${STARTUP_RUNS})`,
    );
  }
  return { base, figures };
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error(
      'dist/ is missing: run `npm run build` first (npm run bench:optimize-cost does)',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'acon-bench-optimize-'));
  const reporter = join(dir, 'usage-reporter.mjs');
  writeFileSync(reporter, REPORTER);
  console.log(`acon optimize --bench apptown ${positionals.join(' ')}  (in ${dir})`);
  if (!PERF) console.log('perf is not available here: no instruction counts');
  const pairs: Pair[] = [];
  try {
    const baseBin = values.baseline
      ? join(buildBaseline(values.baseline, dir), 'bin', 'acon.js')
      : undefined;
    for (let round = 1; round <= ROUNDS; round++) {
      pairs.push(await runRound(round, dir, reporter, baseBin));
    }
    if (ROUNDS > 1) printRounds(pairs);
  } finally {
    removeBaseline(dir);
  }
  if (values.keep || values['cpu-prof']) console.log(`kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

await main();

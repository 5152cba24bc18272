/**
 * What the test suite costs (issue #28): runs `vitest run` as `npm test` does after its build and
 * checks, and prints vitest's own duration, the CPU time and user-space instructions of every
 * process it started (the acon processes of the end-to-end tests included), the test counts and
 * the ten slowest files. Prints figures; asserts nothing.
 *
 *   npm run bench:suite-cost                          # this checkout (after `npm run build`)
 *   npm run bench:suite-cost -- --baseline 6911c85    # that commit first, then ratios to it
 *   npm run bench:suite-cost -- -- test/docs.test.ts  # vitest arguments after a second --
 *
 * The machine's speed changes from day to day (docs/scaling.md), so a duration alone cannot say
 * whether the suite got faster: `--baseline REF` builds that commit in a git worktree sharing this
 * node_modules and runs its suite first, in the same conditions. Instruction counts (with `perf`)
 * stay within a few percent from run to run whatever the machine.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
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
} from './baseline.js';

const { values, positionals } = parseArgs({
  options: { baseline: { type: 'string' } },
  allowPositionals: true,
});

/** The part of vitest's JSON report read here. */
const ReportSchema = z.object({
  numPassedTests: z.number(),
  numFailedTests: z.number(),
  numPendingTests: z.number(),
  testResults: z.array(z.object({ name: z.string(), startTime: z.number(), endTime: z.number() })),
});

type Figures = {
  /** vitest's own duration, as it prints it. */
  durationS: number | null;
  wallS: number;
  /** User + system CPU of vitest and every process under it. */
  cpuS: number | null;
  instructions: number | null;
  passed: number;
  failed: number;
  skipped: number;
  slowest: { file: string; seconds: number }[];
  files: number;
};

/** CPU seconds of this process's finished children (and theirs), from /proc; null elsewhere. */
function childrenCpuS(): number | null {
  try {
    // Fields 16 and 17 of /proc/self/stat: cutime and cstime in clock ticks (100 a second on Linux).
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

/** Runs the suite of the checkout `root`; its report lands in the new folder `dir`. */
async function suite(root: string, dir: string): Promise<Figures> {
  mkdirSync(dir);
  const report = join(dir, 'report.json');
  const perfFile = join(dir, 'perf.csv');
  const vitest = [
    process.execPath,
    join(root, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...positionals,
  ];
  const cpuBefore = childrenCpuS();
  const run = await runCollecting(PERF ? underPerf(vitest, perfFile) : vitest, root, {
    NO_COLOR: '1',
    FORCE_COLOR: '0',
  });
  const cpuAfter = childrenCpuS();
  const output = run.stdout + run.stderr;
  if (!existsSync(report)) {
    process.stderr.write(output.slice(-4000));
    throw new Error(`vitest wrote no report in ${root}`);
  }
  const r = ReportSchema.parse(JSON.parse(readFileSync(report, 'utf8')));
  const duration = /Duration\s+([\d.]+)(m?s)/.exec(output);
  const files = r.testResults.map((t) => ({
    file: relative(root, t.name),
    seconds: (t.endTime - t.startTime) / 1000,
  }));
  return {
    durationS: duration ? Number(duration[1]) / (duration[2] === 'ms' ? 1000 : 1) : null,
    wallS: run.wallMs / 1000,
    cpuS: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null,
    instructions: PERF ? instructions(perfFile) : null,
    passed: r.numPassedTests,
    failed: r.numFailedTests,
    skipped: r.numPendingTests,
    slowest: files.sort((a, b) => b.seconds - a.seconds).slice(0, 10),
    files: files.length,
  };
}

function print(f: Figures, base?: Figures): void {
  const duration = f.durationS === null ? 'not printed' : `${f.durationS.toFixed(1)} s`;
  console.log(
    `duration:    ${duration} (vitest's own), wall ${f.wallS.toFixed(1)} s${ratio(f.durationS, base?.durationS)}`,
  );
  if (f.cpuS !== null) {
    console.log(`CPU time:    ${f.cpuS.toFixed(1)} s, all processes${ratio(f.cpuS, base?.cpuS)}`);
  }
  if (f.instructions !== null) {
    const e9 = (f.instructions / 1e9).toFixed(1);
    console.log(`user instructions: ${e9}e9${ratio(f.instructions, base?.instructions)}`);
  }
  console.log(
    `tests:       ${f.passed} passed, ${f.skipped} skipped, ${f.failed} failed (${f.files} files)`,
  );
  console.log('slowest files:');
  for (const s of f.slowest) console.log(`  ${s.seconds.toFixed(1).padStart(6)} s  ${s.file}`);
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm run bench:suite-cost does)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'acon-bench-suite-'));
  console.log(`vitest run ${positionals.join(' ')}`);
  if (!PERF) console.log('perf is not available here: no instruction counts');
  let base: Figures | undefined;
  try {
    if (values.baseline) {
      const tree = buildBaseline(values.baseline, dir);
      console.log(`\nbaseline ${values.baseline}   load before: ${load()}`);
      base = await suite(tree, join(dir, 'baseline-run'));
      print(base);
      console.log(`load after:  ${load()}\n\nthis checkout`);
    }
    console.log(`load before: ${load()}`);
    const figures = await suite(ROOT, join(dir, 'run'));
    console.log(`load after:  ${load()}`);
    print(figures, base);
  } finally {
    removeBaseline(dir);
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();

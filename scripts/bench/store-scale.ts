/**
 * The read side of acon on a large store (issue #16): a synthetic optimize run of 10,000
 * AppWorld-length rollouts (~30 steps, ~300,000 LLM calls), written through the public RunStore
 * API like real rollouts (scripts/bench/store-scale/generate.ts), then read by the real CLI from
 * dist/ as a child process. Prints one line per figure, with its target beside it:
 *
 *   runs show <s> s (<s> s CPU) (target < 2 s, issue #30), runs show --json, report --html: wall
 *     time and the acon process's CPU time (all its threads), each the median of 3; on a shared
 *     machine compare the CPU time, and read the load printed above them
 *   export --role obs|hist: peak RSS growth over an export of a 32-rollout run in the same file
 *     (the start-up baseline: modules, tokenizer, database open), sampled from /proc
 *
 * The database is kept and reused while its parameters, the schema version and the generator
 * version match (a finished run with a recorded marker); `--fresh` writes it again, which a
 * change to how texts are encoded needs when it keeps the schema version.
 *
 *   npm run bench:store-scale [-- --rollouts 10000 --steps 30 --seed 1 --dir runs/bench --fresh]
 *   npm run bench:store-scale -- --acon ../other-checkout/bin/acon.js    (another build, same file)
 */
import { spawn } from 'node:child_process';
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
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { openRunStore, SCHEMA_VERSION } from '../../src/store/index.js';
import { GROUPS, generateRun, type ScaleParams } from './store-scale/generate.js';

/** Bump when the generator writes different data: an older file is then regenerated. */
const GENERATOR_VERSION = 1;

const { values } = parseArgs({
  options: {
    rollouts: { type: 'string', default: '10000' },
    steps: { type: 'string', default: '30' },
    seed: { type: 'string', default: '1' },
    dir: { type: 'string', default: 'runs/bench' },
    fresh: { type: 'boolean', default: false },
    /** Another build's bin/acon.js, to measure it on the same file (e.g. before a change). */
    acon: { type: 'string' },
  },
});
const params: ScaleParams = {
  rollouts: Number(values.rollouts),
  steps: Number(values.steps),
  seed: Number(values.seed),
};

const ROOT = resolve(import.meta.dirname, '../..');
const ACON = values.acon ? resolve(values.acon) : join(ROOT, 'bin', 'acon.js');
const RUN = `run-scale-${params.rollouts}r-${params.steps}s-seed${params.seed}`;
const TINY = `run-scale-tiny-seed${params.seed}`;
const TINY_PARAMS: ScaleParams = {
  rollouts: GROUPS.length * 2,
  steps: params.steps,
  seed: params.seed,
};
const dir = resolve(ROOT, values.dir);
const dbFile = join(
  dir,
  `store-scale-r${params.rollouts}-s${params.steps}-seed${params.seed}-schema${SCHEMA_VERSION}-gen${GENERATOR_VERSION}.db`,
);

const MarkerSchema = z.object({ rollouts: z.number(), calls: z.number() });

/** The marker the generator writes last: the file holds both complete runs. */
function complete(): z.infer<typeof MarkerSchema> | null {
  if (!existsSync(dbFile)) return null;
  const store = openRunStore(dbFile, { mode: 'read' });
  try {
    const done = (id: string) =>
      store.listRuns().some((r) => r.id === id && r.status === 'finished');
    if (!done(RUN) || !done(TINY)) return null;
    return store.getState(RUN, 'store-scale', MarkerSchema) ?? null;
  } catch {
    return null;
  } finally {
    store.close();
  }
}

function generate(): z.infer<typeof MarkerSchema> {
  mkdirSync(dir, { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile}${suffix}`, { force: true });
  const store = openRunStore(dbFile);
  const started = performance.now();
  try {
    generateRun(store, TINY, TINY_PARAMS);
    let last = started;
    const made = generateRun(store, RUN, params, (done) => {
      const now = performance.now();
      if (now - last < 10_000 && done !== params.rollouts) return;
      last = now;
      const rate = done / ((now - started) / 1000);
      process.stderr.write(
        `  generated ${done}/${params.rollouts} rollouts (${rate.toFixed(0)}/s)\n`,
      );
    });
    store.setState(RUN, 'store-scale', made);
    process.stdout.write(
      `generated ${dbFile} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );
    return made;
  } finally {
    store.close();
  }
}

type Measured = {
  code: number | null;
  seconds: number;
  /** CPU seconds of the acon process (user + system, all its threads). */
  cpu: number;
  peakKb: number;
  stderr: string;
  stdout: string;
};

/**
 * Preloaded into acon: writes the process's own CPU time when it exits, so the figures can be
 * compared on a shared machine, where wall time mostly measures the load (as optimize-cost.ts).
 */
const REPORTER = `import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  writeFileSync(process.env.ACON_BENCH_CPU_FILE, String((user + system) / 1e6));
});
`;

/** Runs acon; wall and CPU time, and the peak resident set (VmHWM, sampled from /proc every 10 ms). */
function acon(args: string[], cwd: string): Promise<Measured> {
  const reporter = join(cwd, 'cpu-reporter.mjs');
  const cpuFile = join(cwd, 'cpu.txt');
  writeFileSync(reporter, REPORTER);
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', reporter, ACON, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '100', ACON_BENCH_CPU_FILE: cpuFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let peakKb = 0;
    const sample = setInterval(() => {
      peakKb = Math.max(peakKb, residentKb(child.pid) ?? 0);
    }, 10);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      clearInterval(sample);
      const seconds = (performance.now() - started) / 1000;
      const cpu = existsSync(cpuFile) ? Number(readFileSync(cpuFile, 'utf8')) : Number.NaN;
      done({ code, seconds, cpu, peakKb, stderr, stdout });
    });
  });
}

/** The larger of VmHWM (peak) and VmRSS of a live process, in kB; null once it is gone. */
function residentKb(pid: number | undefined): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return Math.max(kb('VmHWM'), kb('VmRSS'));
  } catch {
    return null;
  }
}

function check(what: string, m: Measured): Measured {
  if (m.code !== 0) throw new Error(`${what} exited with ${m.code}:\n${m.stderr}`);
  return m;
}

/** Wall and CPU seconds of a command, each the median of three runs (the machine is shared). */
async function median(what: string, args: string[], cwd: string): Promise<string> {
  const runs: Measured[] = [];
  for (let i = 0; i < 3; i++) runs.push(check(what, await acon(args, cwd)));
  const mid = (xs: number[]) => xs.sort((a, b) => a - b)[1]!.toFixed(2);
  return `${mid(runs.map((r) => r.seconds))} s (${mid(runs.map((r) => r.cpu))} s CPU)`;
}

async function main() {
  const marker = !values.fresh ? complete() : null;
  if (marker) process.stdout.write(`reusing ${dbFile}\n`);
  const made = marker ?? generate();
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const size = ['', '-wal'].reduce(
    (n, s) => n + (existsSync(dbFile + s) ? statSync(dbFile + s).size : 0),
    0,
  );
  process.stdout.write(
    `store: ${made.rollouts.toLocaleString('en-US')} rollouts, ${made.calls.toLocaleString('en-US')} llm_calls, ${(size / 1e6).toFixed(0)} MB (load average ${load})\n`,
  );

  const cwd = mkdtempSync(join(tmpdir(), 'acon-store-scale-'));
  try {
    const db = ['--db', dbFile];
    const show = await median('runs show', ['runs', 'show', RUN, ...db], cwd);
    process.stdout.write(`runs show ${show} (target < 2 s, issue #30)\n`);
    const json = await median('runs show --json', ['runs', 'show', RUN, '--json', ...db], cwd);
    process.stdout.write(`runs show --json ${json} (target < 2 s, issue #30)\n`);
    const html = join(cwd, 'report.html');
    const report = await median('report', ['report', RUN, '--html', html, ...db], cwd);
    const mb = statSync(html).size / 1e6;
    process.stdout.write(
      `report --html ${report} (target < 2 s, issue #30), ${mb.toFixed(1)} MB page\n`,
    );
    for (const role of ['obs', 'hist']) {
      const args = (run: string, out: string) => [
        'export',
        '--run',
        run,
        '--role',
        role,
        '--format',
        'openai',
        '--split',
        'all',
        '--guidelines',
        'all',
        '--include-failed',
        '--json',
        '--out',
        join(cwd, out, `${role}.jsonl`),
        ...db,
      ];
      const base = check(`export ${role} (tiny run)`, await acon(args(TINY, 'tiny'), cwd));
      const full = check(`export ${role}`, await acon(args(RUN, 'full'), cwd));
      const summary = JSON.parse(full.stdout) as {
        candidates: number;
        examples: { total: number };
      };
      const growth = (full.peakKb - base.peakKb) / 1024;
      process.stdout.write(
        `export --role ${role}: ${summary.candidates.toLocaleString('en-US')} calls → ${summary.examples.total.toLocaleString('en-US')} examples in ${full.seconds.toFixed(1)} s, peak RSS ${(full.peakKb / 1024).toFixed(0)} MB vs ${(base.peakKb / 1024).toFixed(0)} MB baseline: growth ${growth.toFixed(0)} MB (target < 100 MB)\n`,
      );
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();

/**
 * Throughput of real acon rollouts against a model with fixed latency (issue #16).
 *
 * For each level C@L it starts a fake OpenAI-compatible server on 127.0.0.1 (its own process,
 * latency L) and runs `acon run --provider openai --strategy raw` from dist/ on WAVES×C apptown
 * rollouts with C rollouts and C endpoint slots in flight. Every rollout takes the same number of
 * steps (see fake-model-server.ts), so the run is C calls in flight from the first request to the
 * last answer. Prints, per level:
 *
 *   C=<c> L=<ms>ms calls=<n> ideal=<calls/s> achieved=<calls/s> efficiency=<ratio>
 *     acon CPU per call: <ms> while calls were in flight (<ms> of it system; <s> s of <s> s in all)
 *
 * where ideal = C/L and achieved = calls / (last answer − first request), measured by the server;
 * the CPU per call is the acon process's CPU time (user + system, sampled from /proc every 50 ms)
 * between the first request and the last answer, over the calls: what acon spends per model call
 * once running, without its start-up, task loading and final table (issue #28).
 *
 *   npm run bench:throughput [-- --levels 8@200,64@200,256@200,256@1000 --waves 3 --steps 30]
 *   npm run bench:throughput -- --latency 200 --concurrency 8,64   # every C at one latency
 *   npm run bench:throughput -- --levels 64@200 --baseline 6911c85
 *   npm run bench:throughput -- --levels 64@200 --transports sdk,node-http
 *
 * `--baseline REF` builds that commit in a temporary git worktree (as bench:optimize-cost does)
 * and measures it first at every level, with its own shipped tasks and reference plans, the same
 * number of steps and the same fake model, then prints this build's efficiency and CPU per call
 * as ratios to it: the CPU a call costs depends on the machine's speed of the day
 * (docs/scaling.md), a ratio measured in one run much less.
 *
 * `--transports A,B` measures this build once per transport (`ACON_TRANSPORT`, see
 * src/llm/transport.ts) at every level, each after the first as ratios to the first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as Apptown from '../../../src/bench/apptown/index.js';
import { buildBaseline, ratio, removeBaseline, ROOT, runCollecting } from '../baseline.js';
import { wholeOption } from '../whole-option.js';

const { values } = parseArgs({
  options: {
    levels: { type: 'string' },
    latency: { type: 'string' },
    concurrency: { type: 'string' },
    waves: { type: 'string', default: '3' },
    steps: { type: 'string', default: '30' },
    baseline: { type: 'string' },
    transports: { type: 'string' },
  },
});
/**
 * C@L levels: `--levels`, else every `--concurrency` at `--latency`, else the default: C=8, 64 and
 * 256 at 200 ms, and C=256 at 1,000 ms (a realistic model latency, issue #28).
 */
function parseLevels(): { c: number; latencyMs: number }[] {
  if (values.levels !== undefined) {
    return values.levels.split(',').map((level) => {
      const [c = '', l = ''] = level.split('@');
      return { c: wholeOption('levels (C)', c), latencyMs: wholeOption('levels (L)', l) };
    });
  }
  if (values.latency !== undefined || values.concurrency !== undefined) {
    const latencyMs = wholeOption('latency', values.latency ?? '200');
    const cs = (values.concurrency ?? '8,64,256').split(',');
    return cs.map((c) => ({ c: wholeOption('concurrency', c), latencyMs }));
  }
  return [
    { c: 8, latencyMs: 200 },
    { c: 64, latencyMs: 200 },
    { c: 256, latencyMs: 200 },
    { c: 256, latencyMs: 1000 },
  ];
}
const levels = parseLevels();
const waves = wholeOption('waves', values.waves);
const minSteps = wholeOption('steps', values.steps);

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

/**
 * A build to measure: its bin/acon.js, and the shipped apptown tasks with their reference plans
 * (the fake model's answers) as that build replays them: a baseline gets its own tasks, since
 * task files written for a newer build need not replay in an older one.
 */
type Build = {
  bin: string;
  /** Whether its `acon run` takes --yes: older builds (a --baseline) ask nothing before a paid run. */
  takesYes: boolean;
  tasksDir: string;
  plans: { id: string; instruction: string; steps: { tool: string; args: unknown }[] }[];
};

/** The build rooted at `root` (a checkout with dist/ built), read through its own dist/. */
async function loadBuild(root: string): Promise<Build> {
  const url = pathToFileURL(join(root, 'dist', 'bench', 'apptown', 'index.js')).href;
  const apptown = (await import(url)) as typeof Apptown;
  const bench = apptown.createApptown();
  const plans = [];
  for (const t of await bench.listTasks()) {
    const plan = await bench.referencePlan(t.id);
    const steps = plan.steps.map((s) => ({ tool: s.tool, args: s.args }));
    plans.push({ id: t.id, instruction: t.instruction, steps });
  }
  const bin = join(root, 'bin', 'acon.js');
  const help = await runCollecting([process.execPath, bin, 'run', '--help'], root, {});
  return { bin, takesYes: /--yes\b/.test(help.stdout), tasksDir: apptown.DEFAULT_TASKS_DIR, plans };
}

/** `count` task files copied from `from` (new ids, split `dev`), round robin. */
function writeTasks(from: string, dir: string, count: number): void {
  mkdirSync(dir, { recursive: true });
  const files = readdirSync(from)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  for (let i = 0; i < count; i++) {
    const text = readFileSync(join(from, files[i % files.length]!), 'utf8');
    const id = `${/^id: (.+)$/m.exec(text)![1]!.trim()}-b${Math.floor(i / files.length)}`;
    const copy = text.replace(/^id: .+$/m, `id: ${id}`).replace(/^split: .+$/m, 'split: dev');
    writeFileSync(join(dir, `${id}.yaml`), copy);
  }
}

async function startServer(
  plansFile: string,
  latencyMs: number,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    TSX,
    [join(import.meta.dirname, 'fake-model-server.ts'), plansFile, String(latencyMs)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const m = /^port (\d+)$/.exec(line);
    if (m) return { child, port: Number(m[1]) };
  }
  throw new Error('the fake model server did not start');
}

/** CPU seconds (user + system) of the acon process at wall-clock times (ms since the epoch). */
type CpuSample = { at: number; cpuSeconds: number; sysSeconds: number };

/**
 * Runs acon (`bin`: this build's or the baseline's bin/acon.js); reports its stderr, the CPU
 * seconds it used (user + system, from /proc) and the samples they were read from.
 */
function runAcon(
  bin: string,
  args: string[],
  cwd: string,
  extraEnv: Record<string, string>,
): Promise<{
  code: number | null;
  stderr: string;
  cpuSeconds: number | null;
  samples: CpuSample[];
}> {
  return new Promise((done, fail) => {
    // BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=prof' profiles the acon process; with
    // BENCH_STDOUT=1 its stdout is shown (for flags that print there, such as --trace-gc).
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, bin, ...args], {
      cwd,
      env: {
        ...process.env,
        OPENAI_API_KEY: 'sk-bench-throughput',
        NO_COLOR: '1',
        ACON_PROGRESS_INTERVAL: '0',
        ...extraEnv,
      },
      stdio: ['ignore', process.env.BENCH_STDOUT ? 'inherit' : 'ignore', 'pipe'],
    });
    let stderr = '';
    let cpuSeconds: number | null = null;
    const samples: CpuSample[] = [];
    // Sampled until the end: the last sample before exit is the process's CPU time.
    const sample = setInterval(() => {
      const now = processCpuSeconds(child.pid);
      if (now === null) return;
      cpuSeconds = now.user + now.sys;
      samples.push({
        at: performance.timeOrigin + performance.now(),
        cpuSeconds,
        sysSeconds: now.sys,
      });
    }, 50);
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      clearInterval(sample);
      done({ code, stderr, cpuSeconds, samples });
    });
  });
}

/** utime and stime of a live process (Linux), in seconds; null elsewhere or once it is gone. */
function processCpuSeconds(pid: number | undefined): { user: number; sys: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5), counted from the state field (3): indexes 11 and 12.
    return { user: Number(fields[11]) / CLOCK_TICKS, sys: Number(fields[12]) / CLOCK_TICKS };
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100;

/** CPU seconds (all, and system) used between two wall-clock times: from the last sample before each. */
function cpuBetween(
  samples: readonly CpuSample[],
  from: number,
  to: number,
): { cpu: number; sys: number } | null {
  const before = (t: number) => samples.filter((s) => s.at <= t).at(-1);
  const a = before(from);
  const b = before(to);
  return a && b ? { cpu: b.cpuSeconds - a.cpuSeconds, sys: b.sysSeconds - a.sysSeconds } : null;
}

/** What one level measured of one build. */
type LevelFigures = {
  efficiency: number;
  /** acon's CPU per call (and its system part) while calls were in flight, in ms. */
  cpuPerCallMs: number | null;
  sysPerCallMs: number | null;
};

/**
 * One level C@L with one build: a fresh folder of task copies, a fresh fake model, `acon run`;
 * prints the level's lines (with ratios to `base` when given) and returns its figures.
 */
async function measureLevel(
  { bin, takesYes, tasksDir, plans }: Build,
  dir: string,
  { c, latencyMs, steps }: { c: number; latencyMs: number; steps: number },
  base?: LevelFigures,
  extraEnv: Record<string, string> = {},
): Promise<LevelFigures> {
  // Creates `dir` too.
  writeTasks(tasksDir, join(dir, 'tasks'), waves * c);
  const plansFile = join(dir, 'plans.json');
  writeFileSync(plansFile, JSON.stringify({ steps, tasks: plans }));
  const { child, port } = await startServer(plansFile, latencyMs);
  try {
    writeFileSync(
      join(dir, 'acon.config.yaml'),
      [
        'endpoints:',
        '  default:',
        `    base_url: http://127.0.0.1:${port}/v1`,
        `    concurrency: ${c}`,
        'apptown:',
        `  tasks_dir: ${join(dir, 'tasks')}`,
        '',
      ].join('\n'),
    );
    const args = ['run', '--bench', 'apptown', '--split', 'dev', '--strategy', 'raw'];
    args.push('--provider', 'openai', '--concurrency', String(c), '--no-cache', '--json');
    if (takesYes) args.push('--yes');
    const r = await runAcon(bin, args, dir, extraEnv);
    // Anything on stderr is worth showing (the periodic progress line is off).
    if (r.code !== 0 || /warning|error/i.test(r.stderr)) {
      console.log(`C=${c}: acon exited ${r.code}; stderr:\n${r.stderr}`);
    }
    const stats = (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as {
      calls: number;
      firstAt: number;
      lastAt: number;
      bytes: number;
    };
    const ideal = c / (latencyMs / 1000);
    const achieved = stats.calls / ((stats.lastAt - stats.firstAt) / 1000);
    const efficiency = achieved / ideal;
    console.log(
      `C=${c} L=${latencyMs}ms calls=${stats.calls} ideal=${ideal.toFixed(1)} achieved=${achieved.toFixed(1)} efficiency=${efficiency.toFixed(3)}${ratio(efficiency, base?.efficiency)}`,
    );
    const inFlight = cpuBetween(r.samples, stats.firstAt, stats.lastAt);
    const figures: LevelFigures = {
      efficiency,
      cpuPerCallMs: inFlight && (inFlight.cpu * 1000) / stats.calls,
      sysPerCallMs: inFlight && (inFlight.sys * 1000) / stats.calls,
    };
    if (r.cpuSeconds !== null && inFlight !== null) {
      console.log(
        `  acon CPU per call: ${figures.cpuPerCallMs!.toFixed(2)} ms while calls were in flight (${figures.sysPerCallMs!.toFixed(2)} ms of it system; ${inFlight.cpu.toFixed(1)} s of ${r.cpuSeconds.toFixed(1)} s in all)${ratio(figures.cpuPerCallMs, base?.cpuPerCallMs)}`,
      );
    }
    console.log(
      `  requests: ${(stats.bytes / stats.calls / 1024).toFixed(1)} KiB of body each on average`,
    );
    return figures;
  } finally {
    child.kill();
  }
}

const work = mkdtempSync(join(tmpdir(), 'acon-bench-throughput-'));
try {
  const build = await loadBuild(ROOT);
  const base = values.baseline ? await loadBuild(buildBaseline(values.baseline, work)) : undefined;
  // AppWorld-length rollouts (issue #16: ~30 steps); never shorter than the longest plan.
  const longest = [...build.plans, ...(base?.plans ?? [])].map((p) => p.steps.length);
  const steps = Math.max(minSteps, ...longest);
  console.log(
    `fake model: every rollout ${steps} agent steps (apptown reference plans, padded); ${waves}×C rollouts per level; load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const level of levels) {
    const name = `c${level.c}-l${level.latencyMs}`;
    let baseFigures: LevelFigures | undefined;
    if (base) {
      console.log(`\nbaseline ${values.baseline}`);
      baseFigures = await measureLevel(base, join(work, `baseline-${name}`), { ...level, steps });
      console.log('this build');
    }
    const transports = values.transports?.split(',') ?? [];
    if (transports.length === 0) {
      await measureLevel(build, join(work, name), { ...level, steps }, baseFigures);
      continue;
    }
    let first = baseFigures;
    for (const transport of transports) {
      console.log(`transport ${transport}`);
      const dir = join(work, `${name}-${transport}`);
      const env = { ACON_TRANSPORT: transport };
      const figures = await measureLevel(build, dir, { ...level, steps }, first, env);
      first ??= figures;
    }
  }
} finally {
  removeBaseline(work);
  // The run databases and task copies (tens of MB per level) are not kept.
  rmSync(work, { recursive: true, force: true });
}

/**
 * Issue 22's bands over many task sets at once: for each seed it generates a fresh apptown set
 * (gen-apptown-tasks.ts), runs the issue's compare on its test split in a clean folder and, with
 * --optimize, the README's optimize; then it prints each set's figures, which bands held, and on
 * how many sets each band held. One 40-task set is a noisy judge (a task is 2.5 points), so a
 * band is best read over several sets. Asserts nothing, tunes nothing: it only measures.
 *
 *   npm run bench:sim-seeds -- --seeds shipped,101-110 [--optimize] [--max-tasks N]
 *     [--max-steps N|2x] [--json] [--results DIR]
 *
 * `--results DIR` makes a long measurement resumable: each set's result is written to
 * DIR/set-<seed>.json as soon as it is measured, and a rerun with the same options reads the sets
 * found there instead of measuring them again (one optimize takes minutes of CPU, twenty do not
 * fit a session on a shared machine). A file measured with other options is refused, not mixed in.
 *
 * FIFO's steps are shown with the rollouts that ended at the step cap ("1.25x, 22/40 at the
 * cap"): a rollout stopped by the cap measures the cap, not the agent. `--max-steps 2x` sets the
 * cap to twice the longest reference of each set's test tasks, so elongation can show below it.
 *
 * `shipped` is tasks/apptown as committed; a number N is `gen-apptown-tasks.ts --seed N`.
 * It runs the built CLI (bin/acon.js), so `npm run build` first (the npm script does).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { openRunStore } from '../../src/store/index.js';
import { measured, type Provenance } from '../docs/provenance.js';
import { conditionFigures } from './sim-band-figures.js';
import {
  COMPARE_BANDS,
  figure,
  OPTIMIZE_BANDS,
  pts,
  type OptimizeFigures,
  type Points,
  type SetResult,
  ManifestSchema,
  StoredSetSchema,
  type Manifest,
  type StoredSet,
} from './sim-seed-bands.js';

const REPO = resolve(import.meta.dirname, '../..');
const COMPARED = ['raw', 'fifo', 'masking', 'summary', 'naive'];

const { values: cli } = parseArgs({
  options: {
    seeds: { type: 'string' },
    optimize: { type: 'boolean', default: false },
    'max-tasks': { type: 'string' },
    'max-steps': { type: 'string' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    results: { type: 'string' },
  },
});
if (cli.seeds === undefined) throw new Error('give --seeds, e.g. --seeds shipped,101-110');
const seeds = parseSeeds(cli.seeds);
/** The agent's step cap when none is given (config `agent.max_steps`). */
const DEFAULT_MAX_STEPS = 50;
const maxStepsSpec = cli['max-steps'];
if (maxStepsSpec !== undefined && maxStepsSpec !== '2x' && !/^[1-9]\d*$/.test(maxStepsSpec)) {
  throw new Error(`--max-steps: "${maxStepsSpec}" is neither a whole number from 1 nor 2x`);
}

/** The cap for one set: the one given, or twice the longest reference of its test tasks. */
function maxStepsFor(tasksDir: string): number {
  if (maxStepsSpec === undefined) return DEFAULT_MAX_STEPS;
  if (maxStepsSpec !== '2x') return Number(maxStepsSpec);
  let longest = 0;
  for (const file of readdirSync(tasksDir).filter((f) => f.endsWith('.yaml'))) {
    const task = parseYaml(readFileSync(join(tasksDir, file), 'utf8')) as {
      split?: string;
      reference?: unknown[];
    };
    if (task.split === 'test') longest = Math.max(longest, task.reference?.length ?? 0);
  }
  if (longest === 0)
    throw new Error(`--max-steps 2x: no test task with a reference in ${tasksDir}`);
  return 2 * longest;
}

/** "shipped,3,101-103" → ['shipped', 3, 101, 102, 103]. */
function parseSeeds(spec: string): ('shipped' | number)[] {
  return spec.split(',').flatMap((part): ('shipped' | number)[] => {
    if (part === 'shipped') return ['shipped'];
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (range === null) throw new Error(`--seeds: "${part}" is not shipped, N or N-M`);
    const from = Number(range[1]);
    const to = Number(range[2] ?? range[1]);
    if (from < 1 || to < from) throw new Error(`--seeds: "${part}" must count up from 1`);
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

function run(cmd: string[], cwd: string, env: Record<string, string>): string {
  const r = spawnSync(process.execPath, cmd, {
    cwd,
    env: { ...process.env, ...env, NO_COLOR: '1', ACON_PROGRESS_INTERVAL: '0' },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

function measureSet(seed: 'shipped' | number, work: string): SetResult {
  const dir = join(work, `set-${seed}`);
  mkdirSync(dir, { recursive: true });
  let tasksDir = join(REPO, 'tasks/apptown');
  if (seed !== 'shipped') {
    tasksDir = join(dir, 'tasks');
    const gen = ['scripts/bench/gen-apptown-tasks.ts', '--seed', String(seed), '--out', tasksDir];
    run(['--import', 'tsx', ...gen], REPO, {});
  }
  const maxSteps = maxStepsFor(tasksDir);
  const env = { ACON_APPTOWN__TASKS_DIR: tasksDir, ACON_AGENT__MAX_STEPS: String(maxSteps) };
  const limit = cli['max-tasks'] === undefined ? [] : ['--max-tasks', cli['max-tasks']];
  const bin = join(REPO, 'bin/acon.js');
  const compareDb = join(dir, 'compare.db');
  run(
    [bin, 'compare', '--split', 'test', '--strategies', COMPARED.join(','), '--json']
      .concat(['--db', compareDb])
      .concat(limit),
    dir,
    env,
  );
  const store = openRunStore(compareDb, { mode: 'read' });
  const runId = store.latestRunWithRollouts()?.id;
  if (runId === undefined) throw new Error(`no compare run in ${compareDb}`);
  const compare = conditionFigures(store, runId, maxSteps);
  store.close();
  if (!cli.optimize) return { seed, maxSteps, compare };

  // A folder of its own: promoted guidelines in the working folder would change what v0 is.
  const optDir = join(dir, 'optimize');
  mkdirSync(optDir);
  const out = run(
    [bin, 'optimize', '--bench', 'apptown', '--json', '--db', join(optDir, 'optimize.db')],
    optDir,
    env,
  );
  return { seed, maxSteps, compare, optimize: optimizeFigures(JSON.parse(out)) };
}

type OptimizeJson = {
  start: Record<'obs' | 'hist', { id: string }>;
  ut: Record<'obs' | 'hist', { id: string }>;
  final: Record<'obs' | 'hist', { id: string }>;
  stages: {
    stage: string;
    analyses: number;
    candidates: { accuracy: number | null; peakTokens: number | null }[];
  }[];
  tables: { split: string; rows: { condition: string; accuracy: number }[] }[];
  pairCheck?: { chosen: string; verdict: string };
};

function optimizeFigures(j: OptimizeJson): OptimizeFigures {
  const test = j.tables.find((t) => t.split === 'test');
  if (test === undefined) throw new Error('the optimize printed no test table');
  const acc = (condition: string): Points => {
    const row = test.rows.find((r) => r.condition === condition);
    if (row === undefined) throw new Error(`no row ${condition} in the optimize's test table`);
    return pts(row.accuracy);
  };
  const of = (v: OptimizeJson['start']) => ({
    obs: acc(`acon[${v.obs.id},-]`),
    hist: acc(`acon[-,${v.hist.id}]`),
    both: acc(`acon[${v.obs.id},${v.hist.id}]`),
  });
  return {
    raw: acc('raw'),
    versions: { v0: of(j.start), ut: of(j.ut), final: of(j.final) },
    stages: j.stages.map((s) => {
      const scored = s.candidates.flatMap((c) =>
        c.accuracy === null || c.peakTokens === null
          ? []
          : [c as { accuracy: number; peakTokens: number }],
      );
      return {
        stage: s.stage,
        analyses: s.analyses,
        accuracies: scored.map((c) => c.accuracy),
        peaks: scored.map((c) => c.peakTokens),
        unscored: s.candidates.length - scored.length,
      };
    }),
    ...(j.pairCheck === undefined
      ? {}
      : { pair: { chosen: j.pairCheck.chosen, verdict: j.pairCheck.verdict } }),
  };
}

/** What a stored set was measured with: a rerun reads it only when these are the same. */
const measuredWith = {
  optimize: cli.optimize,
  maxTasks: cli['max-tasks'] ?? null,
  maxSteps: maxStepsSpec ?? null,
};

const resultsDir = cli.results === undefined ? undefined : resolve(cli.results);
if (resultsDir !== undefined) {
  mkdirSync(resultsDir, { recursive: true });
  writeManifest(resultsDir);
}

/**
 * DIR/manifest.json: the commands that filled DIR (a folder finished over several runs names each)
 * and the options its sets were measured with; each set file holds its own commit, date and load.
 * docs/measured/sim-seeds/ is such a folder, rendered into docs/sim.md by `npm run docs:tables`.
 */
function writeManifest(dir: string): void {
  const file = join(dir, 'manifest.json');
  const command = `npm run bench:sim-seeds -- ${process.argv.slice(2).join(' ')}`;
  const before: Manifest = existsSync(file)
    ? ManifestSchema.parse(JSON.parse(readFileSync(file, 'utf8')))
    : { commands: [], measuredWith };
  const commands = before.commands.includes(command)
    ? before.commands
    : [...before.commands, command];
  const manifest: Manifest = { ...before, commands, measuredWith };
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}
const resultFile = (seed: 'shipped' | number) => join(resultsDir ?? '', `set-${seed}.json`);

function storedResult(seed: 'shipped' | number): SetResult | undefined {
  if (resultsDir === undefined || !existsSync(resultFile(seed))) return undefined;
  const stored = StoredSetSchema.parse(JSON.parse(readFileSync(resultFile(seed), 'utf8')));
  if (JSON.stringify(stored.measuredWith) !== JSON.stringify(measuredWith)) {
    throw new Error(
      `${resultFile(seed)} was measured with ${JSON.stringify(stored.measuredWith)}, ` +
        `this run asks ${JSON.stringify(measuredWith)}: move it away or give another --results`,
    );
  }
  return stored.result;
}

/** Written whole under another name first, so a run stopped mid-write leaves no half file. */
function storeResult(result: SetResult, provenance: Provenance): void {
  if (resultsDir === undefined) return;
  const file = resultFile(result.seed);
  const stored: StoredSet = { measuredWith, provenance, result };
  writeFileSync(`${file}.partial`, JSON.stringify(stored, null, 2));
  renameSync(`${file}.partial`, file);
}

const work = mkdtempSync(join(tmpdir(), 'acon-sim-seeds-'));
const bands = cli.optimize ? [...COMPARE_BANDS, ...OPTIMIZE_BANDS] : COMPARE_BANDS;
const results: SetResult[] = [];
if (!cli.json) {
  console.log(`SIMULATED (provider sim). Per set: ${COMPARED.join(', ')} accuracy % on test, then`);
  console.log(`each band's figure and verdict: ${bands.map((b) => b.name).join(' | ')}`);
}
try {
  for (const seed of seeds) {
    const stored = storedResult(seed);
    let result = stored;
    if (result === undefined) {
      const set = measured(() => measureSet(seed, work));
      storeResult(set.value, set.provenance);
      result = set.value;
    }
    results.push(result);
    if (!cli.json)
      console.log(row(result) + (stored === undefined ? '' : '  (read from --results)'));
  }
} finally {
  if (!cli.keep) rmSync(work, { recursive: true, force: true });
}

function row(r: SetResult): string {
  const acc = COMPARED.map((c) => pts(figure(r, c).accuracy).toFixed(1).padStart(5)).join(' ');
  const verdicts = bands.map((b) => {
    const v = b.judge(r);
    const mark = v.holds === null ? '-' : v.holds ? 'ok' : 'MISS';
    return `${v.shows} ${mark}`;
  });
  const pair = r.optimize === undefined ? '' : ` | pair: ${r.optimize.pair?.chosen ?? '?'}`;
  return `${String(r.seed).padEnd(8)} ${acc}  | ${verdicts.join(' | ')}${pair}`;
}

const held = bands.map((b) => {
  const verdicts = results.map((r) => b.judge(r).holds).filter((h) => h !== null);
  return { band: b.name, held: verdicts.filter(Boolean).length, judged: verdicts.length };
});

if (cli.json) {
  console.log(JSON.stringify({ simulated: true, seeds, results, held }, null, 2));
} else {
  for (const h of held) console.log(`${h.band}: held on ${h.held} of ${h.judged} sets`);
  if (cli.optimize) {
    const pairs = results.flatMap((r) => (r.optimize?.pair === undefined ? [] : [r.optimize.pair]));
    const kept = pairs.filter((p) => p.chosen === 'v0').length;
    console.log(`pair check: v0 stays active on ${kept} of ${pairs.length} sets`);
  }
  if (cli.keep) console.log(`runs and task sets kept in ${work}`);
}

/**
 * Issue #57's validation: does learning from recorded conversations alone (counterfactual
 * replay, no environment) give guidelines that work in the environment? For each generated
 * apptown task set (gen-apptown-tasks.ts --seed N) it
 *   1. records raw train rollouts as traces (`acon compare --split train --strategies raw`; with
 *      `--record train,dev` the dev split's too),
 *   2. optimizes from those traces only (`acon optimize --traces RUN --phases ut`),
 *   3. evaluates v0 and the trace-learned UT guideline with the environment on the test split,
 *      one compressor at a time (the other's threshold out of reach, as optimize.isolate does),
 *      with the ordinary `acon compare`, beside raw,
 *   4. runs the environment optimize on the same set (`acon optimize --phases ut`) for its agent
 *      calls and its own UT rows,
 * and prints a row per set: raw, v0 and trace-UT accuracy per compressor, the share of the points
 * v0 lost against raw that trace-UT recovered, and the agent calls of the trace optimize (replay
 * only; the recording is the user's own traffic, shown apart) against the environment optimize.
 * Asserts nothing, tunes nothing: it only measures.
 *
 *   npx tsx scripts/bench/trace-optimize.ts [--seeds 1-10] [--no-env] [--record train[,dev]] [--json]
 *
 * `--record train,dev` records the dev split's raw rollouts too (the tasks the environment
 * optimize selects on), written with `acon runs traces` as one JSONL file: more conversations for
 * the trace optimize's own train / selection split, none from test.
 *
 * It runs the built CLI (bin/acon.js): `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openRunStore } from '../../src/store/index.js';

const REPO = resolve(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/acon.js');
/** A threshold no context reaches: the other compressor is off (optimize.isolate's way). */
const OFF = '1000000000';

const { values: cli } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1-10' },
    'no-env': { type: 'boolean', default: false },
    record: { type: 'string', default: 'train' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});

function parseSeeds(spec: string): number[] {
  return spec.split(',').flatMap((part) => {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (m === null) throw new Error(`--seeds: "${part}" is not N or N-M`);
    const from = Number(m[1]);
    const to = Number(m[2] ?? m[1]);
    if (from < 1 || to < from) throw new Error(`--seeds: "${part}" must count up from 1`);
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

/** The splits whose raw rollouts are the recorded traffic (`--record train,dev`). */
const recordSplits = cli.record.split(',').map((x) => x.trim());
if (recordSplits.some((x) => !['train', 'dev'].includes(x)))
  throw new Error(`--record: "${cli.record}" must name train and/or dev (test is what judges)`);

function acon(args: string[], cwd: string, env: Record<string, string>): string {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, ...env, NO_COLOR: '1', ACON_PROGRESS_INTERVAL: '0' },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`acon ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

/** Agent calls a run made that were not answered from the call cache. */
function agentCalls(db: string, runId: string): number {
  const store = openRunStore(db, { mode: 'read' });
  try {
    return store.calls({ runId, role: 'agent' }).filter((c) => !c.cached).length;
  } finally {
    store.close();
  }
}

type Kind = 'obs' | 'hist';
type Row = {
  seed: number;
  raw: number;
  v0: Record<Kind, number>;
  traceUt: Record<Kind, number>;
  /** (trace-UT − v0) / (raw − v0); null when v0 lost nothing. */
  recovered: Record<Kind, number | null>;
  traceIds: Record<Kind, string>;
  calls: { recording: number; traceOptimize: number; envOptimize: number | null };
  envUt: Record<Kind, number> | null;
};

const pts = (x: number) => Math.round(x * 1000) / 10;

/** The share of the points v0 lost against raw that `x` won back; null when v0 lost nothing. */
function recovery(raw: number, v0: number, x: number): number | null {
  return raw - v0 > 1e-9 ? (x - v0) / (raw - v0) : null;
}

/** Test accuracy of one compressor alone under a guideline pair, by the ordinary compare. */
function testAccuracy(dir: string, env: Record<string, string>, kind: Kind, pair: string): number {
  const off: Record<string, string> =
    kind === 'obs' ? { ACON_CONTEXT__T_HIST: OFF } : { ACON_CONTEXT__T_OBS: OFF };
  const out = acon(
    ['compare', '--split', 'test', '--strategies', 'acon', '--guidelines', pair, '--json'],
    dir,
    { ...env, ...off },
  );
  const j = JSON.parse(out) as { conditions: { condition: string; accuracy: number }[] };
  return j.conditions.find((c) => c.condition.startsWith('acon'))!.accuracy;
}

function measureSet(seed: number, work: string): Row {
  const dir = join(work, `set-${seed}`);
  const tasks = join(dir, 'tasks');
  mkdirSync(dir, { recursive: true });
  const gen = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/bench/gen-apptown-tasks.ts',
      '--seed',
      String(seed),
      '--out',
      tasks,
    ],
    { cwd: REPO, encoding: 'utf8' },
  );
  if (gen.status !== 0) throw new Error(`gen-apptown-tasks --seed ${seed}:\n${gen.stderr}`);
  const env = { ACON_APPTOWN__TASKS_DIR: tasks, ACON_DB: join(dir, 'acon.db') };

  // 1. Recorded traffic: the agent's raw rollouts of the recorded splits (train by default).
  const recRuns = recordSplits.map(
    (split) =>
      (
        JSON.parse(
          acon(['compare', '--split', split, '--strategies', 'raw', '--json'], dir, env),
        ) as { provenance: { runId: string } }
      ).provenance.runId,
  );
  // One run is a source as it is; several are written as one traces file (`acon runs traces`).
  let source = recRuns[0]!;
  if (recRuns.length > 1) {
    source = join(dir, 'traffic.jsonl');
    writeFileSync(source, recRuns.map((run) => acon(['runs', 'traces', run], dir, env)).join(''));
  }

  // 2. Learn from the traces only (the guideline files go to dir/guidelines).
  const opt = JSON.parse(
    acon(['optimize', '--traces', source, '--phases', 'ut', '--no-promote', '--json'], dir, env),
  ) as { runId: string; ut: Record<Kind, { id: string }>; start: Record<Kind, { id: string }> };

  // 3. The environment judges: raw, v0 and trace-UT on the test split, each compressor alone.
  const raw = (
    JSON.parse(acon(['compare', '--split', 'test', '--strategies', 'raw', '--json'], dir, env)) as {
      conditions: { accuracy: number }[];
    }
  ).conditions[0]!.accuracy;
  const v0 = {
    obs: testAccuracy(dir, env, 'obs', `${opt.start.obs.id},${opt.start.hist.id}`),
    hist: testAccuracy(dir, env, 'hist', `${opt.start.obs.id},${opt.start.hist.id}`),
  };
  const traceUt = {
    obs: testAccuracy(dir, env, 'obs', `${opt.ut.obs.id},${opt.start.hist.id}`),
    hist: testAccuracy(dir, env, 'hist', `${opt.start.obs.id},${opt.ut.hist.id}`),
  };
  const recovered = (k: Kind) => recovery(raw, v0[k], traceUt[k]);
  const db = join(dir, 'acon.db');

  // 4. The environment optimize on the same set, in a folder of its own (its own guidelines).
  let envOptimize: number | null = null;
  let envUt: Row['envUt'] = null;
  if (!cli['no-env']) {
    const envDir = join(dir, 'env');
    mkdirSync(envDir);
    const envDb = join(envDir, 'acon.db');
    const e = JSON.parse(
      acon(['optimize', '--bench', 'apptown', '--phases', 'ut', '--no-promote', '--json'], envDir, {
        ...env,
        ACON_DB: envDb,
      }),
    ) as {
      runId: string;
      ut: Record<Kind, { id: string }>;
      tables: { split: string; rows: { condition: string; accuracy: number }[] }[];
    };
    envOptimize = agentCalls(envDb, e.runId);
    const test = e.tables.find((t) => t.split === 'test')!;
    const acc = (c: string) => test.rows.find((r) => r.condition === c)?.accuracy ?? NaN;
    envUt = { obs: acc(`acon[${e.ut.obs.id},-]`), hist: acc(`acon[-,${e.ut.hist.id}]`) };
  }
  return {
    seed,
    raw,
    v0,
    traceUt,
    recovered: { obs: recovered('obs'), hist: recovered('hist') },
    traceIds: { obs: opt.ut.obs.id, hist: opt.ut.hist.id },
    calls: {
      recording: recRuns.reduce((n, run) => n + agentCalls(db, run), 0),
      traceOptimize: agentCalls(db, opt.runId),
      envOptimize,
    },
    envUt,
  };
}

const HEAD =
  'seed   raw | obs: v0  trace-UT  recov (env-UT) | hist: v0  trace-UT  recov (env-UT) | agent calls: trace-opt / env-opt (recording)';

function rowLine(r: Row): string {
  const rec = (x: number | null) => (x === null ? '  n/a' : `${(100 * x).toFixed(0).padStart(4)}%`);
  {
    const env = (k: Kind) => (r.envUt ? `(${pts(r.envUt[k]).toFixed(1)})` : '(—)');
    const ratio = r.calls.envOptimize
      ? ` = ${(r.calls.traceOptimize / r.calls.envOptimize).toFixed(3)}×`
      : '';
    return (
      `${String(r.seed).padStart(4)} ${pts(r.raw).toFixed(1).padStart(5)} |` +
      `  ${pts(r.v0.obs).toFixed(1).padStart(5)}  ${pts(r.traceUt.obs).toFixed(1).padStart(8)}  ${rec(r.recovered.obs)} ${env('obs').padStart(7)} |` +
      `   ${pts(r.v0.hist).toFixed(1).padStart(5)}  ${pts(r.traceUt.hist).toFixed(1).padStart(8)}  ${rec(r.recovered.hist)} ${env('hist').padStart(7)} |` +
      `  ${r.calls.traceOptimize} / ${r.calls.envOptimize ?? '—'}${ratio} (${r.calls.recording})`
    );
  }
}

function printSummary(rows: Row[]): void {
  for (const k of ['obs', 'hist'] as const) {
    const judged = rows.filter((r) => r.recovered[k] !== null);
    const half = judged.filter((r) => r.recovered[k]! >= 0.5).length;
    console.log(
      `${k}: trace-UT recovered at least half of v0's lost points on ${half} of ${judged.length} sets where v0 lost points (${rows.length - judged.length} sets: v0 lost none)`,
    );
    // The environment optimize's own UT guideline, judged the same way: what learning with the
    // environment reaches on the same sets.
    const withEnv = judged.filter((r) => r.envUt !== null);
    if (withEnv.length === 0) continue;
    const envHalf = withEnv.filter((r) => recovery(r.raw, r.v0[k], r.envUt![k])! >= 0.5).length;
    console.log(
      `${k}: env-UT recovered at least half of v0's lost points on ${envHalf} of ${withEnv.length} of those sets`,
    );
  }
}

const work = mkdtempSync(join(tmpdir(), 'acon-trace-optimize-'));
const rows: Row[] = [];
try {
  if (!cli.json) {
    console.log(
      'SIMULATED (sim provider); accuracy in % on each set’s test split, each compressor alone',
    );
    console.log(HEAD);
  }
  // Each row is printed as its set finishes: a long run shows what it has so far.
  for (const seed of parseSeeds(cli.seeds)) {
    const row = measureSet(seed, work);
    rows.push(row);
    if (!cli.json) console.log(rowLine(row));
  }
  if (cli.json) console.log(JSON.stringify(rows, null, 2));
  else printSummary(rows);
} finally {
  if (!cli.keep) rmSync(work, { recursive: true, force: true });
  else console.error(`kept ${work}`);
}

/**
 * Issue 61's paraphrase check: does the sim's naive baseline mean the same with v0's guidelines
 * reworded? For each seed it generates an apptown set (gen-apptown-tasks.ts) and runs naive on its
 * test split with v0 and with each rewording of scripts/bench/v0-paraphrases.ts (one guideline
 * reworded, the other v0), each in a clean folder whose `guidelines/<kind>/0000-generic.md` is the
 * rewording; then it prints, per rewording and set, naive's accuracy, its compression events per
 * task and the tasks whose outcome differs from v0's. The issue's bar: at most 2.5 points of
 * accuracy and 10% of events. Asserts nothing: it measures (test/sim-lexicon.test.ts checks the
 * cheap part, that the compressors read every rewording as v0).
 *
 *   npx tsx scripts/bench/sim-paraphrase.ts --seeds 301-303 [--variants obs-1,hist-5]
 *     [--max-tasks N] [--json]
 *
 * `--variants` runs only those rewordings (v0 always runs: the others are measured against it).
 *
 * It runs the built CLI (bin/acon.js), so `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openRunStore } from '../../src/store/index.js';
import { V0_PARAPHRASES } from './v0-paraphrases.js';

const REPO = resolve(import.meta.dirname, '../..');
/** The issue's bars (issue 61, "Must show"). */
const MAX_POINTS = 2.5;
const MAX_EVENT_SHARE = 0.1;

const { values: cli } = parseArgs({
  options: {
    seeds: { type: 'string', default: '301-303' },
    'max-tasks': { type: 'string' },
    variants: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

function parseSeeds(spec: string): number[] {
  return spec.split(',').flatMap((part) => {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (m === null) throw new Error(`--seeds: "${part}" is not N or N-M`);
    const from = Number(m[1]);
    const to = Number(m[2] ?? m[1]);
    if (to < from) throw new Error(`--seeds: "${part}" must count up`);
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

type Variant = { name: string; kind?: 'obs' | 'hist'; text?: string };

const ALL_VARIANTS: Variant[] = [
  { name: 'v0' },
  ...(['obs', 'hist'] as const).flatMap((kind) =>
    V0_PARAPHRASES[kind].map((text, i) => ({ name: `${kind}-${i + 1}`, kind, text })),
  ),
];
const chosen = cli.variants?.split(',');
for (const name of chosen ?? []) {
  if (!ALL_VARIANTS.some((v) => v.name === name)) {
    throw new Error(`--variants: no rewording "${name}" (obs-1…obs-5, hist-1…hist-5)`);
  }
}
const VARIANTS = ALL_VARIANTS.filter((v) => v.name === 'v0' || chosen?.includes(v.name) !== false);

/** A shipped v0 file with its body replaced: the same front matter, so the same id `*-0000`. */
function reworded(kind: 'obs' | 'hist', text: string): string {
  const shipped = readFileSync(join(REPO, `guidelines/${kind}/0000-generic.md`), 'utf8');
  const end = shipped.indexOf('\n---\n', 4);
  return `${shipped.slice(0, end + 5)}${text}\n`;
}

type Outcome = { accuracy: number; eventsPerTask: number; success: Map<string, boolean> };

function naive(variant: Variant, tasksDir: string, work: string): Outcome {
  const dir = join(work, variant.name);
  mkdirSync(dir, { recursive: true });
  if (variant.kind !== undefined && variant.text !== undefined) {
    mkdirSync(join(dir, 'guidelines', variant.kind), { recursive: true });
    writeFileSync(
      join(dir, 'guidelines', variant.kind, '0000-generic.md'),
      reworded(variant.kind, variant.text),
    );
  }
  const db = join(dir, 'naive.db');
  const limit = cli['max-tasks'] === undefined ? [] : ['--max-tasks', cli['max-tasks']];
  const bin = join(REPO, 'bin/acon.js');
  run(
    [bin, 'compare', '--split', 'test', '--strategies', 'naive', '--json', '--db', db, ...limit],
    dir,
    { ACON_APPTOWN__TASKS_DIR: tasksDir },
  );
  const store = openRunStore(db, { mode: 'read' });
  try {
    const runId = store.latestRunWithRollouts()?.id;
    if (runId === undefined) throw new Error(`no run in ${db}`);
    const rollouts = store.rollouts(runId);
    const events = rollouts.reduce((n, r) => n + store.events(r.id).length, 0);
    return {
      accuracy: rollouts.filter((r) => r.success).length / rollouts.length,
      eventsPerTask: events / rollouts.length,
      success: new Map(rollouts.map((r) => [r.task_id, r.success])),
    };
  } finally {
    store.close();
  }
}

type Row = {
  seed: number;
  variant: string;
  accuracy: number;
  eventsPerTask: number;
  /** Against v0 on the same set: points of accuracy, share of events, tasks flipped. */
  points: number;
  eventShare: number;
  flipped: number;
  holds: boolean;
};

const work = mkdtempSync(join(tmpdir(), 'acon-paraphrase-'));
const rows: Row[] = [];
try {
  for (const seed of parseSeeds(cli.seeds)) {
    const setDir = join(work, `set-${seed}`);
    const tasksDir = join(setDir, 'tasks');
    const gen = ['scripts/bench/gen-apptown-tasks.ts', '--seed', String(seed), '--out', tasksDir];
    run(['--import', 'tsx', ...gen], REPO, {});
    let base: Outcome | undefined;
    for (const variant of VARIANTS) {
      const o = naive(variant, tasksDir, setDir);
      base ??= o;
      const points = Math.round((o.accuracy - base.accuracy) * 1000) / 10;
      const eventShare = base.eventsPerTask === 0 ? 0 : o.eventsPerTask / base.eventsPerTask - 1;
      const flipped = [...o.success].filter(([id, ok]) => base!.success.get(id) !== ok).length;
      const row: Row = {
        seed,
        variant: variant.name,
        accuracy: o.accuracy,
        eventsPerTask: o.eventsPerTask,
        points,
        eventShare,
        flipped,
        holds: Math.abs(points) <= MAX_POINTS && Math.abs(eventShare) <= MAX_EVENT_SHARE,
      };
      rows.push(row);
      if (!cli.json) {
        console.error(
          `seed ${seed} ${variant.name}: naive ${(o.accuracy * 100).toFixed(1)}%, ${o.eventsPerTask.toFixed(2)} events/task, ${flipped} tasks flipped`,
        );
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (cli.json) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(
    `${pad('seed', 6)}${pad('variant', 9)}${pad('naive acc', 11)}${pad('Δ pts', 8)}${pad('events/task', 13)}${pad('Δ events', 10)}${pad('flipped', 9)}holds`,
  );
  for (const r of rows) {
    console.log(
      `${pad(String(r.seed), 6)}${pad(r.variant, 9)}${pad(`${(r.accuracy * 100).toFixed(1)}%`, 11)}${pad(r.points.toFixed(1), 8)}${pad(r.eventsPerTask.toFixed(2), 13)}${pad(`${(r.eventShare * 100).toFixed(1)}%`, 10)}${pad(String(r.flipped), 9)}${r.holds ? 'yes' : 'NO'}`,
    );
  }
  const judged = rows.filter((r) => r.variant !== 'v0');
  console.log(
    `\n${judged.filter((r) => r.holds).length}/${judged.length} rewordings within ${MAX_POINTS} points and ${MAX_EVENT_SHARE * 100}% events of v0`,
  );
}

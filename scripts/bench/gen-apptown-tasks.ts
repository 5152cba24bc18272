/**
 * Writes tasks/apptown/*.yaml from the templates in scripts/bench/apptown-tasks/. The YAML
 * files are committed and are the source of truth (edit them freely); rerun this only to
 * regenerate the set. Every task is checked before it is written: its reference runs without
 * an error, passes its own evaluation, and its declared choices give the reference values.
 *
 * A task is a long-horizon job made of three or four template parts over different apps (issue
 * 13): discovery through api_docs first, the apps' logins, each API's documentation before its
 * first call, paged lists, then the parts, the one that asks a question last.
 *
 * Two kinds of part (issue 22): ordinary ones, and those that compute a value from data (a declared
 * `choose`: a max, min, sum or count over a paged list, or a compare-and-choose among records),
 * where compression loses what the agent compares on. Every task in every split has
 * AGGREGATE_PARTS of the second kind, so the utility phase sees compared fields and lost pages on
 * train, candidate selection sees the damage of dropping them on dev, and test asks the same of
 * the agent. Train and dev draw from the templates not in HELD_OUT, test only from HELD_OUT, so
 * held-out numbers measure new templates of the same kinds, not new seeds.
 *
 * `--seed N` draws a different set from the same templates (other worlds, other combinations), so
 * anyone can check that the figures hold on tasks nobody tuned anything on; without it (or with
 * `--seed 0`) it writes the shipped set. `--out DIR` (default tasks/apptown) is where the files
 * go; run acon on them with `apptown.tasks_dir: DIR` or `ACON_APPTOWN__TASKS_DIR=DIR`.
 *
 *   npx tsx scripts/bench/gen-apptown-tasks.ts --seed 2 --out /tmp/apptown-seed2
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Document } from 'yaml';
import { ApptownBenchmark } from '../../src/bench/apptown/benchmark.js';
import { runPlan } from '../../src/bench/apptown/drive.js';
import { WorldCache } from '../../src/bench/apptown/worlds.js';
import type { TaskFile } from '../../src/bench/apptown/task-schema.js';
import { TaskBuilder, type ChangeInput } from './apptown-tasks/builder.js';
import { buildAlone, HELD_OUT, TEMPLATES, worldSeeds } from './apptown-tasks/index.js';
import { NoCandidate, Picker } from './apptown-tasks/picker.js';
import type { Template } from './apptown-tasks/template.js';

type Split = TaskFile['split'];

/** How many tasks each split gets, and from which templates. */
const SEEN = TEMPLATES.filter((t) => !HELD_OUT.has(t.slug));
const PLAN: { split: Split; count: number; templates: Template[] }[] = [
  { split: 'train', count: 44, templates: SEEN },
  { split: 'dev', count: 40, templates: SEEN },
  { split: 'test', count: 40, templates: TEMPLATES.filter((t) => HELD_OUT.has(t.slug)) },
];

const { values: cli } = parseArgs({
  options: { seed: { type: 'string', default: '0' }, out: { type: 'string' } },
  allowPositionals: true,
});
/** 0: the shipped set. Any other seed shifts the worlds and the template draws. */
const SET_SEED = Number(cli.seed);
if (!Number.isInteger(SET_SEED) || SET_SEED < 0) {
  throw new Error(`--seed must be an integer from 0 up, got ${cli.seed}`);
}

const SEEDS = worldSeeds(SET_SEED);

/** Parts per task: three or four. */
const partsOf = (index: number) => [3, 4, 3, 4, 3][index % 5] as number;

/** Parts of a task, in every split, that compute a value from data; the others are ordinary. */
const AGGREGATE_PARTS = 2;

/**
 * Reference lengths a task must have: long enough that the LLM summary (N=21, M=10 folds at 31
 * turns, seed 001) fires in every rollout, like AppWorld's 20 to 40-step trajectories, and
 * short enough to leave room for re-fetches under the 50-step limit (`agent.max_steps`).
 */
const MIN_CALLS = 33;
const MAX_CALLS = 45;

const appOf = (t: Template) => t.slug.split('-')[0] ?? t.slug;

function difficulty(length: number): 1 | 2 | 3 {
  if (length >= 41) return 3;
  return length >= 37 ? 2 : 1;
}

type Built = Omit<TaskFile, 'id' | 'split' | 'difficulty'>;

/** Runs the parts in one world; returns the apps they used and which part asked a question. */
function runParts(b: TaskBuilder, parts: Template[], seed: number) {
  const specs = [];
  let asker = -1;
  for (const [i, part] of parts.entries()) {
    const before = b.steps.length;
    const spec = part.build(b, new Picker(seed * 31 + i * 7 + part.slug.length));
    if (spec.answer !== undefined) asker = i;
    specs.push({ spec, before });
  }
  return { specs, asker };
}

function join2(sentences: string[]): string {
  if (sentences.length === 1) return sentences[0] ?? '';
  const words = ['First', 'Then', 'Finally'];
  return sentences
    .map((s, i) => `${i === sentences.length - 1 ? 'Finally' : words[i]}: ${s}`)
    .join(' ');
}

function build(parts: Template[], seed: number, worlds: WorldCache): Built {
  // Pass 1 learns which apps the parts use (discovery comes first in the real task).
  const probe = new TaskBuilder(seed, worlds);
  const first = runParts(probe, parts, seed);
  if (first.asker !== -1 && first.asker !== parts.length - 1) throw new NoCandidate();
  const apps = [
    ...new Set(probe.steps.map((s) => s.app).filter((a) => a !== 'api_docs' && a !== 'supervisor')),
  ];
  const b = new TaskBuilder(seed, worlds);
  b.discover(['supervisor', ...apps]);
  const { specs } = runParts(b, parts, seed);
  b.handIn();
  const answer = specs.find((s) => s.spec.answer !== undefined)?.spec.answer;
  const changes: ChangeInput[] = specs.flatMap((s) => s.spec.changes ?? []);
  return b.finish({
    instruction: join2(specs.map((s) => s.spec.instruction)),
    ...(answer !== undefined ? { answer } : {}),
    changes,
  });
}

/**
 * Whether a template computes a value from data: its reference declares a `choose` on the first
 * world that has data for it. Read from the reference, so a new template needs no label.
 */
function computesFromData(t: Template, worlds: WorldCache): boolean {
  for (const seed of SEEDS) {
    const b = buildAlone(t, seed, worlds);
    if (b) return b.steps.some((s) => s.choose !== undefined);
  }
  throw new Error(`${t.slug}: no world has data for it`);
}

type Pools = { aggregate: Template[]; ordinary: Template[] };

function poolsOf(templates: Template[], worlds: WorldCache): Pools {
  const aggregate = templates.filter((t) => computesFromData(t, worlds));
  return { aggregate, ordinary: templates.filter((t) => !aggregate.includes(t)) };
}

/**
 * Seeded combinations over different apps: AGGREGATE_PARTS templates that compute from data and
 * ordinary ones for the rest, in a seeded order; each combination is tried on several worlds.
 */
function* combos(pools: Pools, parts: number, picker: Picker): Generator<Template[]> {
  for (let tries = 0; tries < 400; tries++) {
    const chosen: Template[] = [];
    const take = (pool: Template[], n: number) => {
      let taken = 0;
      for (const t of picker.shuffle(pool)) {
        if (taken === n) return;
        if (chosen.some((c) => appOf(c) === appOf(t))) continue;
        chosen.push(t);
        taken++;
      }
    };
    take(pools.aggregate, AGGREGATE_PARTS);
    take(pools.ordinary, parts - AGGREGATE_PARTS);
    if (chosen.length === parts) yield picker.shuffle(chosen);
  }
}

function makeTask(
  split: Split,
  index: number,
  pools: Pools,
  used: Set<string>,
  worlds: WorldCache,
) {
  const picker = new Picker(index * 7919 + split.length + SET_SEED * 104729);
  for (const parts of combos(pools, partsOf(index), picker)) {
    const template = parts.map((p) => p.slug).join('+');
    for (let k = 0; k < 4; k++) {
      const seed = SEEDS[(index * 5 + k * 11 + split.length) % SEEDS.length] as number;
      const key = `${template}@${seed}`;
      if (used.has(key)) continue;
      try {
        const body = build(parts, seed, worlds);
        const calls = body.reference.length;
        if (calls < MIN_CALLS || calls > MAX_CALLS) continue;
        used.add(key);
        const apps = parts.map(appOf).join('-');
        const id = `${split}-${String(index + 1).padStart(3, '0')}-${apps}`;
        return { id, split, difficulty: difficulty(body.reference.length), template, ...body };
      } catch (err) {
        if (!(err instanceof NoCandidate)) {
          console.warn(`${template} seed ${seed}: ${(err as Error).message.slice(0, 300)}`);
        }
      }
    }
  }
  throw new Error(`${split} task ${index + 1}: no combination of templates fits`);
}

function toYaml(task: TaskFile): string {
  const { id, split, template, difficulty, seed, supervisor, instruction, reference, evaluation } =
    task;
  const doc = new Document({
    id,
    split,
    template,
    difficulty,
    seed,
    supervisor,
    instruction,
    reference,
    evaluation,
  });
  doc.commentBefore =
    ` apptown task, generated by scripts/bench/gen-apptown-tasks.ts from template(s)\n` +
    ` ${template ?? ''}.\n` +
    ' The format (templates like {{s2.access_token}}, reads, choose, evaluation) is documented\n' +
    ' in src/bench/apptown/task-schema.ts.';
  return doc.toString({ lineWidth: 100 });
}

async function main(outDir: string) {
  await mkdir(outDir, { recursive: true });
  for (const name of await readdir(outDir)) {
    if (name.endsWith('.yaml')) await rm(join(outDir, name));
  }
  const worlds = new WorldCache();
  for (const { split, count, templates } of PLAN) {
    const used = new Set<string>();
    const pools = poolsOf(templates, worlds);
    for (let i = 0; i < count; i++) {
      const task = makeTask(split, i, pools, used, worlds);
      await writeFile(join(outDir, `${task.id}.yaml`), toYaml(task));
    }
  }
  // Read the files back through the real loader and replay them through the adapter.
  const bench = new ApptownBenchmark(outDir);
  const problems = await bench.loadProblems();
  for (const p of problems) console.error(p.message);
  const tasks = await bench.listTasks();
  for (const task of tasks) {
    const episode = await bench.start(task.id);
    await runPlan(episode, await bench.referencePlan(task.id));
    const result = await episode.evaluate();
    if (!result.success)
      console.error(`${task.id}: reference fails: ${JSON.stringify(result.details)}`);
  }
  const bySplit = PLAN.map(
    ({ split }) => `${split} ${tasks.filter((t) => t.split === split).length}`,
  );
  console.log(`wrote ${tasks.length} tasks to ${outDir} (${bySplit.join(', ')})`);
  if (problems.length > 0) process.exitCode = 1;
}

await main(cli.out ?? process.argv[2] ?? 'tasks/apptown');

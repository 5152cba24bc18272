/**
 * Writes tasks/apptown/*.yaml from the templates in scripts/bench/apptown-tasks/. The YAML
 * files are committed and are the source of truth (edit them freely); rerun this only to
 * regenerate the set. Every task is checked before it is written: its reference runs without
 * an error, passes its own evaluation, and its declared choices give the reference values.
 *
 * A task is a long-horizon job made of two or three template parts over different apps
 * (issue 13): discovery through api_docs first, the apps' logins, each API's documentation
 * before its first call, paged lists, then the parts, the one that asks a question last. Train
 * and dev use the templates of TEMPLATES; test uses only heldOutTemplates, so held-out numbers
 * measure new kinds of task, not new seeds.
 *
 * Some templates compute a value from data (a declared `choose`) or decide per item (a declared
 * `decide`); issue 22 spreads them over the splits: train and dev draw from TEMPLATES, which holds
 * several of them, and test from heldOutTemplates, which holds the others.
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
import type { TaskFile } from '../../src/bench/apptown/task-schema.js';
import { heldOutTemplates, sharedAggregateTemplates } from './apptown-tasks/aggregate.js';
import { TaskBuilder, type ChangeInput } from './apptown-tasks/builder.js';
import { TEMPLATES } from './apptown-tasks/index.js';
import { NoCandidate, Picker } from './apptown-tasks/picker.js';
import type { Template } from './apptown-tasks/template.js';

type Split = TaskFile['split'];

/** How many tasks each split gets, from which templates, and how many parts a task has. */
const SEEN = [...TEMPLATES, ...sharedAggregateTemplates];
const PLAN: { split: Split; count: number; templates: Template[] }[] = [
  { split: 'train', count: 44, templates: SEEN },
  { split: 'dev', count: 40, templates: SEEN },
  { split: 'test', count: 40, templates: heldOutTemplates },
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

/** World seeds; a task's parts share one world. */
const SEEDS = Array.from({ length: 48 }, (_, i) => 1103 + i * 1117 + SET_SEED * 7919);

/** Parts per task: three or four. */
const partsOf = (index: number) => [3, 4, 3, 4, 3][index % 5] as number;

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

function build(parts: Template[], seed: number): Built {
  // Pass 1 learns which apps the parts use (discovery comes first in the real task).
  const probe = new TaskBuilder(seed);
  const first = runParts(probe, parts, seed);
  if (first.asker !== -1 && first.asker !== parts.length - 1) throw new NoCandidate();
  const apps = [
    ...new Set(probe.steps.map((s) => s.app).filter((a) => a !== 'api_docs' && a !== 'supervisor')),
  ];
  const b = new TaskBuilder(seed);
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

/** Seeded combinations of templates over different apps, each tried on several worlds. */
function* combos(templates: Template[], parts: number, picker: Picker): Generator<Template[]> {
  for (let tries = 0; tries < 400; tries++) {
    const chosen: Template[] = [];
    for (const t of picker.shuffle(templates)) {
      if (chosen.some((c) => appOf(c) === appOf(t))) continue;
      chosen.push(t);
      if (chosen.length === parts) break;
    }
    if (chosen.length === parts) yield chosen;
  }
}

function makeTask(split: Split, index: number, templates: Template[], used: Set<string>) {
  const picker = new Picker(index * 7919 + split.length + SET_SEED * 104729);
  for (const parts of combos(templates, partsOf(index), picker)) {
    const template = parts.map((p) => p.slug).join('+');
    for (let k = 0; k < 4; k++) {
      const seed = SEEDS[(index * 5 + k * 11 + split.length) % SEEDS.length] as number;
      const key = `${template}@${seed}`;
      if (used.has(key)) continue;
      try {
        const body = build(parts, seed);
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
  for (const { split, count, templates } of PLAN) {
    const used = new Set<string>();
    for (let i = 0; i < count; i++) {
      const task = makeTask(split, i, templates, used);
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

/**
 * What racing saves (issue 56): runs the README optimize (`acon optimize --bench apptown`) twice
 * in fresh temporary folders, with `--racing` and with `--no-racing`, in one run of this script,
 * and prints each one's candidate selection rollouts (stored, and saved by racing), their ratio,
 * every racing drop, and the test accuracy of the pair each run chose, with its 95% bootstrap
 * CI. The chosen pair can be a mix (a learned guideline with the other's v0) that the final
 * table has no row for; then it is run on the evaluation split in the same folder (`acon run
 * --strategy acon --guidelines …`, the same condition as the table's pairs). Prints figures;
 * asserts nothing. Extra acon flags after `--` go to both optimize runs.
 *
 *   npm run build && tsx scripts/bench/racing.ts
 *   npm run build && tsx scripts/bench/racing.ts -- --max-tasks 4 --candidates 2
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { OptimizeResultSchema, type OptimizeResult } from '../../src/optimize/optimize.js';
import { ROOT } from './baseline.js';

const BIN = join(ROOT, 'bin', 'acon.js');
const extra = process.argv.slice(2).filter((a) => a !== '--');

/** What this script reads of a condition's metrics (`acon run --json`, the final tables). */
const ScoreSchema = z.object({
  condition: z.string(),
  tasks: z.number(),
  accuracy: z.number(),
  accuracyCi: z.tuple([z.number(), z.number()]),
});
type Score = z.infer<typeof ScoreSchema>;

function acon(dir: string, args: string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...args, '--json', '--db', join(dir, 'runs.db')], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`acon ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

/** The chosen pair's score on the evaluation split: its final-table row, else a run of it. */
function chosenOnEval(
  dir: string,
  r: OptimizeResult,
): { label: string; split: string; score: Score } {
  const test = r.tables.at(-1)!;
  // Runs recorded before the pair check have no chosen pair: their final pair is what they made.
  const pair = r.chosen ?? r.final;
  const label = `acon[${pair.obs.id},${pair.hist.id}]`;
  const row = test.rows.find((x) => x.condition === label);
  if (row) return { label, split: test.split, score: ScoreSchema.parse(row) };
  const out = acon(dir, [
    'run',
    '--bench',
    'apptown',
    '--split',
    test.split,
    '--strategy',
    'acon',
    '--guidelines',
    `${pair.obs.id},${pair.hist.id}`,
  ]);
  const run = z.object({ conditions: z.array(ScoreSchema) }).parse(JSON.parse(out));
  return { label, split: test.split, score: run.conditions[0]! };
}

function optimizeIn(flag: '--racing' | '--no-racing') {
  const dir = mkdtempSync(join(tmpdir(), 'acon-racing-'));
  try {
    const out = acon(dir, ['optimize', '--bench', 'apptown', flag, ...extra]);
    const r = OptimizeResultSchema.parse(JSON.parse(out));
    return { r, chosen: chosenOnEval(dir, r) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pct = (x: number) => (100 * x).toFixed(1);
const acc = (s: Score) =>
  `${pct(s.accuracy)}% [${pct(s.accuracyCi[0])}–${pct(s.accuracyCi[1])}] of ${s.tasks}`;

const runs = {} as Record<'--racing' | '--no-racing', ReturnType<typeof optimizeIn>>;
for (const flag of ['--racing', '--no-racing'] as const) runs[flag] = optimizeIn(flag);
const prov = runs['--racing'].r.tables[0]!.provenance;
console.log(
  `${prov.simulated ? 'SIMULATED · ' : ''}provider ${prov.provider} · agent ${prov.models.agent} · ` +
    `compressors ${prov.models.obs_compressor} / ${prov.models.hist_compressor} · ` +
    `acon optimize --bench apptown ${extra.join(' ')}`.trimEnd(),
);
const ran = {} as Record<string, number>;
for (const [flag, { r, chosen }] of Object.entries(runs)) {
  ran[flag] = r.stages.reduce((a, s) => a + (s.selectionRollouts?.ran ?? 0), 0);
  const saved = r.stages.reduce((a, s) => a + (s.selectionRollouts?.saved ?? 0), 0);
  const accepted = r.stages.map((s) => `${s.stage}=${s.accepted ?? '-'}`).join(' ');
  console.log(
    `${flag.padEnd(12)} selection rollouts ${ran[flag]} (saved ${saved}) · accepted ${accepted} · ` +
      `chosen ${chosen.label} on ${chosen.split}: ${acc(chosen.score)}`,
  );
  for (const s of r.stages) {
    const sr = s.selectionRollouts;
    if (sr) console.log(`  ${s.stage}: ${sr.ran} run, ${sr.saved} saved`);
    for (const c of s.candidates)
      if (c.reason.startsWith('dropped by racing')) console.log(`    ${c.id}: ${c.reason}`);
  }
}
console.log(
  `ratio racing / no-racing selection rollouts: ${(ran['--racing']! / Math.max(1, ran['--no-racing']!)).toFixed(3)}`,
);
const a = runs['--racing'].chosen;
const b = runs['--no-racing'].chosen;
const inside =
  a.score.accuracy >= b.score.accuracyCi[0] && a.score.accuracy <= b.score.accuracyCi[1];
console.log(
  `racing's chosen pair on ${a.split}: ${acc(a.score)}, ${inside ? 'within' : 'outside'} ` +
    `the --no-racing pair's 95% CI: ${acc(b.score)}`,
);

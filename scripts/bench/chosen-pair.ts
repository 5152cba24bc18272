/**
 * The pair an optimize run chose, scored on its evaluation split (issue 56): its final-table
 * row, or, when the chosen pair is a mix the final table has no row for (a learned guideline
 * with the other's v0), a run of it on that split in the same folder and database (`acon run
 * --strategy acon --guidelines …`, the condition the table's pairs run under). Used by
 * scripts/bench/racing.ts and pair-verdicts.ts; runs the built CLI.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { z } from 'zod';
import type { OptimizeResult } from '../../src/optimize/optimize.js';
import { ROOT } from './baseline.js';

const BIN = join(ROOT, 'bin', 'acon.js');

/** What the benchmarks read of a condition's metrics (`acon run --json`, the final tables). */
export const ScoreSchema = z.object({
  condition: z.string(),
  tasks: z.number(),
  accuracy: z.number(),
  accuracyCi: z.tuple([z.number(), z.number()]),
});
export type Score = z.infer<typeof ScoreSchema>;

/** `acon args… --json --db <dir>/runs.db` in `dir`; its stdout, or an error with its stderr. */
export function aconJson(dir: string, args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [BIN, ...args, '--json', '--db', join(dir, 'runs.db')], {
    cwd: dir,
    env: { ...process.env, ...env, NO_COLOR: '1', ACON_PROGRESS_INTERVAL: '0' },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`acon ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

/** A guideline pair's score on the run's evaluation split: its row, else a run of it. */
export function pairOnEval(
  dir: string,
  r: OptimizeResult,
  pair: { obs: { id: string }; hist: { id: string } },
  env: Record<string, string> = {},
): { label: string; split: string; score: Score } {
  const test = r.tables.at(-1)!;
  const label = `acon[${pair.obs.id},${pair.hist.id}]`;
  const row = test.rows.find((x) => x.condition === label);
  if (row) return { label, split: test.split, score: ScoreSchema.parse(row) };
  const args = ['run', '--bench', 'apptown', '--split', test.split, '--strategy', 'acon'];
  const out = aconJson(dir, [...args, '--guidelines', `${pair.obs.id},${pair.hist.id}`], env);
  const run = z.object({ conditions: z.array(ScoreSchema) }).parse(JSON.parse(out));
  return { label, split: test.split, score: run.conditions[0]! };
}

/** The pair the run chose (runs recorded before the pair check: the final pair it made). */
export function chosenPair(r: OptimizeResult) {
  return r.chosen ?? r.final;
}

const pct = (x: number) => (100 * x).toFixed(1);

/** "80.0% [67.5–92.5] of 40". */
export function accuracyText(s: Pick<Score, 'accuracy' | 'accuracyCi' | 'tasks'>): string {
  return `${pct(s.accuracy)}% [${pct(s.accuracyCi[0])}–${pct(s.accuracyCi[1])}] of ${s.tasks}`;
}

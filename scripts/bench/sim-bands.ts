/**
 * The sim's bands (issue 22) from a stored `acon compare` run: per condition, accuracy, mean steps
 * against raw, history compressions per agent step and the mean summary size against its input.
 * Prints the figures; asserts nothing (the bands are checked by a reader, never tuned to).
 *
 *   npx tsx scripts/bench/sim-bands.ts --db runs/acon.db [--run RUN]
 */
import { parseArgs } from 'node:util';
import { openRunStore } from '../../src/store/index.js';

const { values } = parseArgs({ options: { db: { type: 'string' }, run: { type: 'string' } } });
if (values.db === undefined) throw new Error('give --db FILE');
const store = openRunStore(values.db, { mode: 'read' });
const run = values.run ?? store.latestRunWithRollouts()?.id;
if (run === undefined) throw new Error(`no run with rollouts in ${values.db}`);

type Row = { n: number; ok: number; steps: number; hist: number; ratios: number[] };
const rows = new Map<string, Row>();
for (const r of store.rollouts(run)) {
  const row = rows.get(r.condition) ?? { n: 0, ok: 0, steps: 0, hist: 0, ratios: [] };
  rows.set(r.condition, row);
  row.n++;
  row.ok += r.success ? 1 : 0;
  row.steps += r.steps;
  for (const e of store.events(r.id)) {
    if (e.kind !== 'hist' && e.kind !== 'summary') continue;
    row.hist++;
    if (e.inputTokens > 0) row.ratios.push(e.outputTokens / e.inputTokens);
  }
}
const raw = rows.get('raw');
const rawSteps = raw ? raw.steps / raw.n : NaN;
console.log(`run ${run}`);
for (const [condition, r] of rows) {
  const mean = (xs: number[]) =>
    xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length;
  const steps = r.steps / r.n;
  console.log(
    `${condition.padEnd(8)} acc ${((100 * r.ok) / r.n).toFixed(1).padStart(5)}%  steps ${steps.toFixed(1)} (${(steps / rawSteps).toFixed(2)}x raw)` +
      `  history compressions/step ${(r.hist / r.steps).toFixed(3)} (1 per ${(r.steps / Math.max(1, r.hist)).toFixed(1)})` +
      `  summary/input ${mean(r.ratios).toFixed(2)}`,
  );
}
store.close();

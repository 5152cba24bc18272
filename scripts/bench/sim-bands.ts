/**
 * The sim's bands (issue 22) from a stored `acon compare` run: per condition, accuracy, mean steps
 * against raw, history compressions per agent step and the mean summary size against its input.
 * Prints the figures; asserts nothing (the bands are checked by a reader, never tuned to).
 * `sim-seeds.ts` does the same over freshly generated task sets and judges the bands.
 *
 *   npx tsx scripts/bench/sim-bands.ts --db runs/acon.db [--run RUN] [--max-steps N]
 *
 * `--max-steps` is the cap the run used (default 50, config `agent.max_steps`): rollouts that
 * ended there are counted ("22/40 at the cap"), since their steps measure the cap.
 */
import { parseArgs } from 'node:util';
import { openRunStore } from '../../src/store/index.js';
import { conditionFigures } from './sim-band-figures.js';

const { values } = parseArgs({
  options: { db: { type: 'string' }, run: { type: 'string' }, 'max-steps': { type: 'string' } },
});
if (values.db === undefined) throw new Error('give --db FILE');
const store = openRunStore(values.db, { mode: 'read' });
const run = values.run ?? store.latestRunWithRollouts()?.id;
if (run === undefined) throw new Error(`no run with rollouts in ${values.db}`);

const maxSteps = Number(values['max-steps'] ?? 50);
if (!Number.isInteger(maxSteps) || maxSteps < 1)
  throw new Error('--max-steps: a whole number from 1');
const figures = conditionFigures(store, run, maxSteps);
const rawSteps = figures.find((f) => f.condition === 'raw')?.meanSteps ?? NaN;
console.log(`run ${run}`);
for (const f of figures) {
  const folds = f.foldsPerStep === 0 ? 'none' : `1 per ${(1 / f.foldsPerStep).toFixed(1)}`;
  console.log(
    `${f.condition.padEnd(8)} acc ${(100 * f.accuracy).toFixed(1).padStart(5)}%  steps ${f.meanSteps.toFixed(1)} (${(f.meanSteps / rawSteps).toFixed(2)}x raw, ${f.atCap}/${f.rollouts} at the cap)` +
      `  history compressions/step ${f.foldsPerStep.toFixed(3)} (${folds})` +
      `  summary/input ${f.summaryRatio.toFixed(2)}`,
  );
}
store.close();

/**
 * The note's table of issue 56 (a mechanism check, not a target): for the shipped apptown tasks
 * and generated sets (`gen-apptown-tasks.ts --seed N`), one README optimize per set in a fresh
 * folder, and for each the pair the pair check chose, its selection and test accuracy beside the
 * v0 pair's, and the verdict line. Prints figures; asserts nothing, tunes nothing. Runs the
 * built CLI, so `npm run build` first. Extra acon flags after `--` go to every optimize.
 *
 *   npm run build && nice npx tsx scripts/bench/pair-verdicts.ts --seeds shipped,101,102,103
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OptimizeResultSchema } from '../../src/optimize/optimize.js';
import { ROOT } from './baseline.js';
import { aconJson, accuracyText, chosenPair, pairOnEval } from './chosen-pair.js';

const { values: cli, positionals } = parseArgs({
  options: { seeds: { type: 'string', default: 'shipped,101,102,103' } },
  allowPositionals: true,
});
const extra = positionals.filter((a) => a !== '--');
const seeds = cli.seeds.split(',').map((s) => (s === 'shipped' ? s : Number(s)));
for (const s of seeds)
  if (s !== 'shipped' && !(Number.isInteger(s) && s >= 1))
    throw new Error(`--seeds: "${String(s)}" is neither shipped nor a whole number from 1`);

/** One set's figures: the chosen pair and the v0 pair on selection and test, and the verdict. */
function measure(seed: 'shipped' | number) {
  const dir = mkdtempSync(join(tmpdir(), `acon-pairs-${seed}-`));
  try {
    const env: Record<string, string> = {};
    if (seed !== 'shipped') {
      const tasks = join(dir, 'tasks');
      const gen = ['--import', 'tsx', 'scripts/bench/gen-apptown-tasks.ts', '--seed', String(seed)];
      const g = spawnSync(process.execPath, [...gen, '--out', tasks], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      if (g.status !== 0) throw new Error(`gen-apptown-tasks --seed ${seed} failed:\n${g.stderr}`);
      env.ACON_APPTOWN__TASKS_DIR = tasks;
    }
    const out = aconJson(dir, ['optimize', '--bench', 'apptown', ...extra], env);
    const r = OptimizeResultSchema.parse(JSON.parse(out));
    const check = r.pairCheck;
    const chosen = chosenPair(r);
    const option = (name: string | undefined) => check?.options.find((o) => o.name === name);
    return {
      seed,
      provenance: r.tables[0]!.provenance,
      chosenName: check?.chosen ?? 'final pair',
      chosenSel: option(check?.chosen)?.accuracy,
      v0Sel: option('v0')?.accuracy,
      selTasks: check?.tasks,
      chosenTest: pairOnEval(dir, r, chosen, env),
      v0Test: pairOnEval(dir, r, r.start, env),
      verdict: check?.verdict ?? '(no pair check)',
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pct = (x: number | undefined) => (x === undefined ? 'n/a' : `${(100 * x).toFixed(1)}%`);
const results = seeds.map((s) => measure(s));
const p = results[0]!.provenance;
console.log(
  `${p.simulated ? 'SIMULATED · ' : ''}provider ${p.provider} · agent ${p.models.agent} · ` +
    `compressors ${p.models.obs_compressor} / ${p.models.hist_compressor} · ` +
    `acon optimize --bench apptown ${extra.join(' ')}`.trimEnd(),
);
for (const x of results) {
  const set = x.seed === 'shipped' ? 'shipped tasks' : `gen-apptown-tasks --seed ${x.seed}`;
  console.log(`${set}:`);
  console.log(
    `  chosen ${x.chosenName} ${x.chosenTest.label}: selection ${pct(x.chosenSel)} of ${x.selTasks}, ` +
      `${x.chosenTest.split} ${accuracyText(x.chosenTest.score)}`,
  );
  console.log(
    `  v0 pair ${x.v0Test.label}: selection ${pct(x.v0Sel)} of ${x.selTasks}, ` +
      `${x.v0Test.split} ${accuracyText(x.v0Test.score)}`,
  );
  console.log(`  verdict pair: ${x.verdict}`);
}

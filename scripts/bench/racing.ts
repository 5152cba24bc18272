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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OptimizeResultSchema } from '../../src/optimize/optimize.js';
import { aconJson, accuracyText as acc, chosenPair, pairOnEval } from './chosen-pair.js';

const extra = process.argv.slice(2).filter((a) => a !== '--');

function optimizeIn(flag: '--racing' | '--no-racing') {
  const dir = mkdtempSync(join(tmpdir(), 'acon-racing-'));
  try {
    const out = aconJson(dir, ['optimize', '--bench', 'apptown', flag, ...extra]);
    const r = OptimizeResultSchema.parse(JSON.parse(out));
    return { r, chosen: pairOnEval(dir, r, chosenPair(r)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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

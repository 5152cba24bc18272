/**
 * What racing saves (issue 56): runs the README optimize (`acon optimize --bench apptown`) twice
 * in fresh temporary folders, with `--racing` and with `--no-racing`, in one run of this script,
 * and prints each one's candidate selection rollouts (stored, and saved by racing), their ratio,
 * and the final test accuracy of the pair each one chose, with its 95% bootstrap CI. Prints
 * figures; asserts nothing. Extra acon flags after `--` go to both runs.
 *
 *   npm run build && tsx scripts/bench/racing.ts
 *   npm run build && tsx scripts/bench/racing.ts -- --max-tasks 4 --candidates 2
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OptimizeResultSchema, type OptimizeResult } from '../../src/optimize/optimize.js';
import { ROOT } from './baseline.js';

const BIN = join(ROOT, 'bin', 'acon.js');
const extra = process.argv.slice(2).filter((a) => a !== '--');

function optimizeIn(flag: '--racing' | '--no-racing'): OptimizeResult {
  const dir = mkdtempSync(join(tmpdir(), 'acon-racing-'));
  try {
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        'optimize',
        '--bench',
        'apptown',
        flag,
        '--json',
        '--db',
        join(dir, 'runs.db'),
        ...extra,
      ],
      { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 },
    );
    if (r.status !== 0) throw new Error(`acon optimize ${flag} failed:\n${r.stderr}`);
    return OptimizeResultSchema.parse(JSON.parse(r.stdout));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function figures(r: OptimizeResult) {
  const ran = r.stages.reduce((a, s) => a + (s.selectionRollouts?.ran ?? 0), 0);
  const saved = r.stages.reduce((a, s) => a + (s.selectionRollouts?.saved ?? 0), 0);
  const label = r.pairCheck?.options.find((o) => o.name === r.pairCheck!.chosen)?.label;
  const test = r.tables.at(-1)!;
  const row = test.rows.find((x) => x.condition === label);
  const accepted = r.stages.map((s) => `${s.stage}=${s.accepted ?? '-'}`).join(' ');
  return { ran, saved, label, split: test.split, row, accepted };
}

const pct = (x: number) => (100 * x).toFixed(1);
const out: Record<string, ReturnType<typeof figures>> = {};
for (const flag of ['--racing', '--no-racing'] as const) {
  const f = figures(optimizeIn(flag));
  out[flag] = f;
  const acc = f.row
    ? `${pct(f.row.accuracy)}% [${pct(f.row.accuracyCi[0])}–${pct(f.row.accuracyCi[1])}]`
    : 'n/a';
  console.log(
    `${flag.padEnd(12)} selection rollouts ${f.ran} (saved ${f.saved}) · accepted ${f.accepted} · ` +
      `chosen ${f.label ?? '?'} ${f.split} ${acc}`,
  );
}
const a = out['--racing']!;
const b = out['--no-racing']!;
console.log(
  `ratio racing / no-racing selection rollouts: ${(a.ran / Math.max(1, b.ran)).toFixed(3)}`,
);
if (a.row && b.row) {
  const inside = a.row.accuracy >= b.row.accuracyCi[0] && a.row.accuracy <= b.row.accuracyCi[1];
  console.log(
    `racing's chosen pair on ${a.split}: ${pct(a.row.accuracy)}% ${inside ? 'within' : 'outside'} ` +
      `the --no-racing pair's 95% CI [${pct(b.row.accuracyCi[0])}–${pct(b.row.accuracyCi[1])}]`,
  );
}

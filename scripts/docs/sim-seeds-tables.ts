import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSchema } from '../../src/config/index.js';
import {
  COMPARE_BANDS,
  figure,
  ManifestSchema,
  pts,
  recovery,
  StoredSetSchema,
  type Manifest,
  type SetResult,
  type StoredSet,
} from '../bench/sim-seed-bands.js';
import { MEASURED_DIR } from './measured-record.js';
import { day } from './measured-tables.js';

/**
 * docs/sim.md's band and UT-recovery tables and the README's sentence about
 * `npm run bench:sim-seeds` (issue #58), rendered from the sets `sim-seeds --results DIR` stored in
 * docs/measured/sim-seeds/bands (compare only) and docs/measured/sim-seeds/optimize (with
 * --optimize): the bands are judged by the code sim-seeds.ts prints them with
 * (scripts/bench/sim-seed-bands.ts), and every block says on which commit, when and at what load
 * its sets were measured.
 */

export const SIM_SEEDS_DIR = join(MEASURED_DIR, 'sim-seeds');

type Folder = { dir: string; manifest: Manifest; sets: StoredSet[] };

function folder(name: 'bands' | 'optimize'): Folder {
  const dir = join(SIM_SEEDS_DIR, name);
  const file = join(dir, 'manifest.json');
  if (!existsSync(file)) {
    throw new Error(
      `docs/measured/sim-seeds/${name}/manifest.json is missing: see docs/development.md`,
    );
  }
  const manifest = ManifestSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const sets = readdirSync(dir)
    .filter((f) => /^set-.+\.json$/.test(f))
    .map((f) => StoredSetSchema.parse(JSON.parse(readFileSync(join(dir, f), 'utf8'))))
    .sort((a, b) => Number(a.result.seed) - Number(b.result.seed));
  if (sets.length === 0) throw new Error(`no set-*.json in docs/measured/sim-seeds/${name}`);
  return { dir, manifest, sets };
}

const hhmm = (iso: string) => new Date(iso).toISOString().slice(11, 16);
const range = (xs: number[], digits = 1) => {
  const lo = Math.min(...xs).toFixed(digits);
  const hi = Math.max(...xs).toFixed(digits);
  return lo === hi ? lo : `${lo}-${hi}`;
};

const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(1)}`;
/** `−2.5 to +2.5`: a range of differences, each with its sign. */
const signedRange = (xs: number[]) => {
  const lo = signed(Math.min(...xs));
  const hi = signed(Math.max(...xs));
  return lo === hi ? lo : `${lo} to ${hi}`;
};

/** `seeds 201-220` for a run of consecutive seeds, else the list. */
function seedsText(sets: StoredSet[]): string {
  const seeds = sets.map((s) => s.result.seed);
  const numbers = seeds.filter((s): s is number => typeof s === 'number');
  const consecutive =
    numbers.length === seeds.length &&
    numbers.every((s, i) => i === 0 || s === numbers[i - 1]! + 1);
  return consecutive && numbers.length > 1
    ? `seeds ${numbers[0]}-${numbers.at(-1)}`
    : `sets ${seeds.join(', ')}`;
}

/** The sim's models under the default config, as a compare prints them (`sim/gpt-4.1`). */
function simModels(): string {
  const roles = ConfigSchema.parse({}).roles;
  const models = [...new Set(Object.values(roles).map((r) => `sim/${r.model}`))];
  return models.length === 1 ? `every role \`${models[0]}\`` : models.join(', ');
}

/**
 * Where and when the sets were measured: their commits, day and hours, the load range over them,
 * and the commands. Sets that carry no provenance of their own take the manifest's `earlier`.
 */
function provenanceText({ manifest, sets }: Folder): string {
  const own = sets.flatMap((s) => (s.provenance ? [s.provenance] : []));
  const parts: string[] = [];
  if (own.length > 0) {
    const commits = [
      ...new Set(own.map((p) => `\`${p.commit}\`${p.dirty ? ' (with local changes)' : ''}`)),
    ];
    const dates = own.map((p) => p.date).sort();
    const ends = own.map((p) => new Date(Date.parse(p.date) + p.seconds * 1000).toISOString());
    const loads = own.flatMap((p) =>
      [p.loadBefore, p.loadAfter].map((l) => Number(l.split(' ')[0])),
    );
    const seconds = own.map((p) => p.seconds);
    parts.push(
      `${own.length === sets.length ? 'Measured' : `${own.length} sets measured`} on ${commits.join(', ')}, ` +
        `${day(dates[0]!)} ${hhmm(dates[0]!)}-${hhmm(ends.sort().at(-1)!)} UTC, ` +
        `${range(seconds, 0)} s a set at load average ${range(loads)} on ${own[0]!.cpus} cores`,
    );
  }
  if (own.length < sets.length) {
    const earlier = manifest.earlier;
    if (!earlier) throw new Error('sets without provenance and no `earlier` in the manifest');
    parts.push(
      `${own.length === 0 ? 'Measured' : `${sets.length - own.length} measured`} on \`${earlier.commit}\` (${earlier.note})`,
    );
  }
  const commands = manifest.commands.map((c) => `\`${c}\``).join('; then ');
  return `${parts.join('; ')}: ${commands}. Records in \`docs/measured/sim-seeds/\`.`;
}

const BAND_LABELS: Record<string, string> = {
  'raw 70-95%': 'raw 70-95%',
  'naive loses 5-30': 'naive loses 5-30 points',
  'fifo loses >=5, >=1.2x steps': "FIFO loses at least 5 points, at least 1.2× raw's steps",
  'masking within 5': 'masking within 5 points of raw',
  'summaries <= 1/2 input': 'summaries at most half their input',
  'folds <= 1 per 6 steps': 'history compression at most once per 6 steps',
};

type Judged = { seed: SetResult['seed']; holds: boolean | null; shows: string };

function judgedBands(results: SetResult[]) {
  return COMPARE_BANDS.map((b) => ({
    band: b,
    verdicts: results.map((r): Judged => ({ seed: r.seed, ...b.judge(r) })),
  }));
}

/** docs/sim.md: on how many sets each of issue 22's compare bands held, and where it missed. */
export function simSeedsBands(): string {
  const f = folder('bands');
  const results = f.sets.map((s) => s.result);
  const bands = judgedBands(results);
  const lines = [
    `SIMULATED (provider sim, ${simModels()}; default settings, ${range(
      results.map((r) => r.maxSteps),
      0,
    )}-step cap), ${seedsText(f.sets)}, each set's 40 test tasks under raw, fifo, masking, summary and naive. ${provenanceText(f)}`,
    '',
    '| band (issue 22) | held on | where it missed |',
    '|---|---|---|',
    ...bands.map(({ band, verdicts }) => {
      const judged = verdicts.filter((v) => v.holds !== null);
      const held = judged.filter((v) => v.holds === true).length;
      const missed = judged.filter((v) => v.holds === false);
      const where =
        missed.length === 0 ? '' : missed.map((v) => `seed ${v.seed}: ${v.shows}`).join('; ');
      return `| ${BAND_LABELS[band.name] ?? band.name} | ${held} of ${judged.length} | ${where} |`;
    }),
    '',
    bandsSummary(results, bands),
  ];
  return lines.join('\n');
}

function bandsSummary(results: SetResult[], bands: ReturnType<typeof judgedBands>): string {
  const heldCounts = bands.map(({ verdicts }) => verdicts.filter((v) => v.holds === true).length);
  const every = results.filter((_, i) =>
    bands.every(({ verdicts }) => verdicts[i]!.holds !== false),
  );
  const acc = (r: SetResult, c: string) => pts(figure(r, c).accuracy);
  const raw = results.map((r) => acc(r, 'raw'));
  const naiveLoss = results.map((r) => acc(r, 'raw') - acc(r, 'naive'));
  const fifo = results.map((r) => acc(r, 'fifo'));
  const fifoSteps = results.map((r) => figure(r, 'fifo').meanSteps / figure(r, 'raw').meanSteps);
  const atCap = results.map((r) => figure(r, 'fifo').atCap);
  const fifoRollouts = results.reduce((n, r) => n + figure(r, 'fifo').rollouts, 0);
  const masking = results.map((r) => acc(r, 'masking') - acc(r, 'raw'));
  const ratios = results.flatMap((r) =>
    r.compare.filter((c) => !Number.isNaN(c.summaryRatio)).map((c) => c.summaryRatio),
  );
  const folds = Math.max(...results.flatMap((r) => r.compare.map((c) => c.foldsPerStep)));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return (
    `Every band holds on at least ${Math.min(...heldCounts)} of ${results.length}, and ${every.length} sets meet every band at once. ` +
    `Raw scores ${range(raw)}, naive loses ${range(naiveLoss)} points (mean ${mean(naiveLoss).toFixed(1)}), ` +
    `FIFO scores ${range(fifo)} at ${range(fifoSteps, 3)}× raw's steps with ${atCap.reduce((a, b) => a + b, 0)} of its ${fifoRollouts} rollouts (${range(atCap, 0)} a set) at the cap, ` +
    `masking is ${signedRange(masking)} points from raw, summaries are at most ${Math.max(...ratios).toFixed(2)} of their input ` +
    `and history compression fires at most once per ${(1 / folds).toFixed(1)} steps.`
  );
}

/** README, inline: what `npm run bench:sim-seeds` showed on the recorded sets. */
export function readmeSimSeeds(): string {
  const f = folder('bands');
  const results = f.sets.map((s) => s.result);
  const bands = judgedBands(results);
  const every = results.filter((_, i) =>
    bands.every(({ verdicts }) => verdicts[i]!.holds !== false),
  );
  const raw = results.map((r) => pts(figure(r, 'raw').accuracy));
  const loss = results.map(
    (r) => pts(figure(r, 'raw').accuracy) - pts(figure(r, 'naive').accuracy),
  );
  const mean = loss.reduce((a, b) => a + b, 0) / loss.length;
  const commits = [...new Set(f.sets.flatMap((s) => (s.provenance ? [s.provenance.commit] : [])))];
  const first = f.sets.find((s) => s.provenance)?.provenance;
  const when =
    first === undefined ? '' : ` (SIMULATED, on \`${commits.join('`, `')}\`, ${day(first.date)})`;
  return (
    `\`npm run bench:sim-seeds -- --seeds ${seedsText(f.sets).replace(/^seeds /, '')}\` generates ${results.length} sets and checks the sim's bands on each. ` +
    `On those ${results.length}${when}, ${every.length} meet every compare band at once; raw scores ${range(raw)} and naive loses ` +
    `${range(loss)} points, ${mean.toFixed(1)} on average`
  );
}

/** `75.0 → **75.0**`: v0 → UT accuracy, bold where UT did not get back half of what v0 lost. */
function recoveryCell(r: SetResult, which: 'obs' | 'hist' | 'both'): string {
  const o = r.optimize!;
  const v = recovery(which).judge(r);
  const ut = o.versions.ut[which].toFixed(1);
  const cell = `${o.versions.v0[which].toFixed(1)} → ${v.holds === false ? `**${ut}**` : ut}`;
  return v.holds === null ? `${cell} (lost none)` : cell;
}

const analyses = (r: SetResult, stage: string) => {
  const s = r.optimize!.stages.find((x) => x.stage === stage);
  return s === undefined ? '-' : String(s.analyses);
};

/** docs/sim.md: the README optimize's UT recovery per compressor on every recorded set. */
export function simSeedsUtRecovery(): string {
  const f = folder('optimize');
  const results = f.sets.map((s) => s.result).filter((r) => r.optimize !== undefined);
  const lines = [
    `SIMULATED (provider sim, ${simModels()}; default settings), the README optimize (\`acon optimize --bench apptown --json\`) on ${seedsText(f.sets)}, each in a clean folder. ${provenanceText(f)}`,
    '',
    '| set | raw | obs | hist | both | UT obs analyses | UT hist analyses | pair check chose |',
    '|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.seed} | ${r.optimize!.raw.toFixed(1)} | ${recoveryCell(r, 'obs')} | ${recoveryCell(r, 'hist')} | ${recoveryCell(r, 'both')} | ${analyses(r, 'ut:obs:r1')} | ${analyses(r, 'ut:hist:r1')} | ${r.optimize!.pair?.chosen ?? '?'} |`,
    ),
    '',
    recoverySummary(results),
  ];
  return lines.join('\n');
}

function recoverySummary(results: SetResult[]): string {
  const counts = (['obs', 'hist', 'both'] as const).map((which) => {
    const verdicts = results.map((r) => ({ seed: r.seed, holds: recovery(which).judge(r).holds }));
    const judged = verdicts.filter((v) => v.holds !== null);
    const none = verdicts.filter((v) => v.holds === null).map((v) => v.seed);
    return {
      which,
      text: `for ${which} on ${judged.filter((v) => v.holds).length} of ${judged.length}`,
      none: none.length === 0 ? '' : `${which} on ${none.join(', ')}`,
    };
  });
  const pairs = results.flatMap((r) => (r.optimize?.pair ? [r.optimize.pair.chosen] : []));
  const chosen = new Map<string, number>();
  for (const p of pairs) chosen.set(p, (chosen.get(p) ?? 0) + 1);
  const kept = chosen.get('v0') ?? 0;
  const others = [...chosen]
    .filter(([p]) => p !== 'v0')
    .sort((a, b) => b[1] - a[1])
    .map(([p, n]) => `"${p}" on ${n}`);
  const lostNone = counts.filter((c) => c.none !== '').map((c) => c.none);
  return (
    `Over these ${results.length} sets UT recovers at least half of what v0 lost ${counts.map((c) => c.text).join(', ')} ` +
    `(of the sets where v0 lost something against raw${lostNone.length > 0 ? `; lost none: ${lostNone.join('; ')}` : ''}). ` +
    `The pair check kept v0 active on ${kept} of ${pairs.length} sets${others.length > 0 ? ` and chose ${others.join(', ')}` : ''}. ` +
    "Cells are v0 → UT test accuracy % (40 held-out tasks), bold where UT does not get back half of what v0 lost against raw (`recovery()` in `scripts/bench/sim-seed-bands.ts`); UT is the utility phase's output (v0 itself when that stage accepted nothing), not UTCO; the analyses are those its updater read (one per contrastive pair)."
  );
}

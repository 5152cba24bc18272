/**
 * What `npx acon` costs on top of `node bin/acon.js` (issue #58), both timed in one run,
 * interleaved, in a checkout that `npm ci` built. Prints medians and ratios; asserts nothing.
 *
 *   npx tsx scripts/bench/npx-start.ts                    # this checkout, 7 rounds
 *   npx tsx scripts/bench/npx-start.ts --rounds 11
 *   npx tsx scripts/bench/npx-start.ts --fresh-clone      # git clone HEAD, npm ci, then time
 *
 * Rows:
 * - `node bin/acon.js --version`: acon's own start;
 * - `npx --version`: npm's own start, which every `npx` pays before it looks for a command;
 * - `npx acon --version`: what the README's command pays. npm 11 runs a checkout's own bin by
 *   linking the checkout into its npx cache (libnpmexec: "self-execution of a local bin"); its
 *   first call in a new cache runs `prepare`, which skips the build when dist/ matches the sources
 *   (scripts/build-inputs.mjs). The first call is timed apart, with a fresh npx cache, and the
 *   line says whether it built.
 * - `npx acon optimize --bench apptown --dry-run` beside `node bin/acon.js` with the same flags.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    'fresh-clone': { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`--rounds must be a whole number ≥ 1, got ${values.rounds}`);
  process.exit(2);
}

const repo = resolve(import.meta.dirname, '../..');
let dir = repo;
if (values['fresh-clone']) {
  dir = mkdtempSync(join(tmpdir(), 'acon-npx-clone-'));
  execFileSync('git', ['clone', '--quiet', repo, dir]);
  const started = performance.now();
  execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    stdio: 'ignore',
  });
  console.log(`fresh clone in ${dir}: npm ci took ${seconds(performance.now() - started)}`);
}

const cache = mkdtempSync(join(tmpdir(), 'acon-npx-cache-'));
const env = { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' };

function timeOnce(command: string, args: string[]): number {
  const started = performance.now();
  const r = spawnSync(command, args, { cwd: dir, env, encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (r.status !== 0) {
    console.error(`${command} ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
    process.exit(1);
  }
  return elapsed;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const compiled = join(dir, 'dist/cli/main.js');
const builtAt = statSync(compiled).mtimeMs;
const first = timeOnce('npx', ['--offline', 'acon', '--version']);
const rebuilt = statSync(compiled).mtimeMs !== builtAt;
console.log(
  `first npx acon --version in a new npx cache: ${seconds(first)}, ${rebuilt ? 'REBUILT dist/ (tsc ran)' : 'no build (dist/ matched the sources)'}`,
);

const dryRun = ['optimize', '--bench', 'apptown', '--dry-run', '--db', join(cache, 'dry.db')];
const rows: [string, string, string[]][] = [
  ['node bin/acon.js --version', process.execPath, ['bin/acon.js', '--version']],
  ['npx --version (npm itself)', 'npx', ['--version']],
  ['npx acon --version', 'npx', ['--offline', 'acon', '--version']],
  ['node bin/acon.js … --dry-run', process.execPath, ['bin/acon.js', ...dryRun]],
  ['npx acon … --dry-run', 'npx', ['--offline', 'acon', ...dryRun]],
];
const times = rows.map(() => [] as number[]);
for (let round = 0; round < rounds; round++) {
  rows.forEach(([, command, args], i) => times[i]!.push(timeOnce(command, args)));
}
const medians = times.map(median);
console.log(
  `\nmedian of ${rounds} interleaved rounds (load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}):`,
);
rows.forEach(([label], i) => console.log(`  ${label.padEnd(30)} ${seconds(medians[i]!)}`));
console.log(
  `\nnpx acon --version / node bin/acon.js --version: ×${(medians[2]! / medians[0]!).toFixed(2)}`,
);
console.log(
  `npx --version alone / node bin/acon.js --version:  ×${(medians[1]! / medians[0]!).toFixed(2)}`,
);
console.log(
  `npx acon --dry-run / node bin/acon.js --dry-run:   ×${(medians[4]! / medians[3]!).toFixed(2)}`,
);
rmSync(cache, { recursive: true, force: true });

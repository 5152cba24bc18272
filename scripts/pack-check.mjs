#!/usr/bin/env node
// Installs acon the way a user does, from the tarball `npm pack` makes, into a fresh project, then
// imports the public API with Node and type-checks a consumer file against the shipped
// declarations (issue #25). Needs a built dist/ (`npm run build`). Dependencies come from the npm
// cache when it has them (--prefer-offline); install scripts are skipped (the consumer file does
// not open a database, so better-sqlite3 needs no native build here).
//
//   node scripts/pack-check.mjs            prints "pack-check: ok" or fails with the step's output
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'acon-pack-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd, args, cwd) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    process.stderr.write(
      `pack-check: ${cmd} ${args.join(' ')} failed\n${err.stdout ?? ''}${err.stderr ?? ''}\n`,
    );
    process.exit(1);
  }
}

try {
  run(npm, ['pack', '--ignore-scripts', '--pack-destination', work], root);
  const tarball = join(
    work,
    readdirSync(work).find((f) => f.endsWith('.tgz')),
  );
  const consumer = join(work, 'consumer');
  run('mkdir', ['-p', consumer], work);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'acon-consumer', private: true, type: 'module' }),
  );
  run(
    npm,
    ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
    consumer,
  );

  const imported = run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import { createContextCompressor, loadGuidelines } from 'acon'; const g = await loadGuidelines(); console.log(typeof createContextCompressor, g.obs.id, g.hist.id);",
    ],
    consumer,
  );
  if (imported.trim() !== 'function obs-0000 hist-0000') {
    process.stderr.write(`pack-check: unexpected import result: ${imported}\n`);
    process.exit(1);
  }

  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ['consumer.ts'],
    }),
  );
  writeFileSync(
    join(consumer, 'consumer.ts'),
    `import { createContextCompressor, loadGuidelines, type CompressionReport } from 'acon';

const compressor = createContextCompressor({
  guidelines: await loadGuidelines('obs@active,hist@active'),
  model: { baseURL: 'http://127.0.0.1:1/v1', model: 'student' },
  thresholds: { obs: 1024, hist: 4096, keepLast: 1 },
  onReport: (r: CompressionReport) => void (r.tokensBefore - r.tokensAfter),
});
const out = await compressor.compress([{ role: 'user', content: 'hello' }]);
const n: number = out.length;
void n;
// Declarations are real: a wrong option type is an error.
// @ts-expect-error thresholds are numbers
createContextCompressor({ guidelines: await loadGuidelines(), model: { baseURL: 'x', model: 'm' }, thresholds: { obs: 'big' } });
`,
  );
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', consumer], consumer);
  process.stdout.write('pack-check: ok (npm pack, install, import, tsc)\n');
} finally {
  rmSync(work, { recursive: true, force: true });
}

#!/usr/bin/env node
// Installs acon the way a user does, from the tarball `npm pack` makes, into a fresh project
// (issues #25, #59): dependencies from the npm cache first (--prefer-offline: the registry only
// for what the cache lacks), optional dependencies omitted so
// better-sqlite3 is absent, the adapters' frameworks added at the versions acon is developed
// against. There it imports every entry point from ESM, `require`s the main one, type-checks a
// consumer file with `tsc --strict`, type-checks the ```ts snippets of docs/runtime.md the same way
// (scripts/docs-ts-snippets.mjs), and compresses a conversation with the `sim` compressor.
// Needs a built dist/ (`npm run build`): `npm pack --ignore-scripts` packs what is there.
//
//   node scripts/pack-check.mjs            prints "pack-check: ok" or fails with the step's output
//   PACK_CHECK_KEEP=1 node scripts/pack-check.mjs   keeps the temporary project (its path printed)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsSnippets } from './docs-ts-snippets.mjs';

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

function fail(message) {
  process.stderr.write(`pack-check: ${message}\n`);
  process.exit(1);
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
  // The frameworks the adapters import, at the versions of acon's own node_modules (cached), and
  // the two model packages docs/runtime.md's snippets use beside them.
  // --omit=optional (to leave out better-sqlite3) also drops @openai/agents-core's optional
  // @modelcontextprotocol/client, without which the SDK itself fails to import; a user's normal
  // install has it, so the consumer names it.
  const frameworks = [
    'ai',
    'langchain',
    '@langchain/core',
    '@openai/agents',
    '@modelcontextprotocol/client',
    '@ai-sdk/openai-compatible',
    '@langchain/openai',
  ].map(
    (name) =>
      `${name}@${JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version}`,
  );
  run(
    npm,
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--omit=optional',
      tarball,
      ...frameworks,
    ],
    consumer,
  );
  const installed = join(consumer, 'node_modules', 'acon');
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  // npm runs `prepare` only in a checkout (npm ci, a git or folder install), never for a tarball
  // or registry install, so the checkout keeps it to build dist/; these three would run.
  for (const hook of ['preinstall', 'install', 'postinstall']) {
    if (manifest.scripts?.[hook]) fail(`the package has a "${hook}" script a consumer would run`);
  }
  if (!existsSync(join(installed, 'dist', 'runtime', 'index.js'))) fail('dist/ is not shipped');
  if (existsSync(join(consumer, 'node_modules', 'better-sqlite3'))) {
    fail('better-sqlite3 was installed although optional dependencies were omitted');
  }

  const esm = run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      [
        "const entries = ['acon', 'acon/ai-sdk', 'acon/langchain', 'acon/openai-agents'];",
        'const mods = await Promise.all(entries.map((e) => import(e)));',
        "console.log(mods.map((m, i) => entries[i] + ':' + Object.keys(m).sort().join(',')).join(' '));",
      ].join('\n'),
    ],
    consumer,
  );
  // Each entry must export at least these names; an entry may export more (the list grows).
  const exported = new Map(
    esm
      .trim()
      .split(' ')
      .map((part) => {
        const [entry, names] = part.split(':');
        return [entry, new Set(names.split(','))];
      }),
  );
  for (const [entry, names] of Object.entries({
    acon: ['applyPlan', 'createContextCompressor', 'loadGuidelines'],
    'acon/ai-sdk': ['aconMiddleware', 'compressPrompt', 'languageModelCompressor'],
    'acon/langchain': ['aconMiddleware', 'chatModelCompressor', 'compressMessages'],
    'acon/openai-agents': ['aconInputFilter', 'agentsModelCompressor', 'compressInput'],
  })) {
    const missing = names.filter((name) => !exported.get(entry)?.has(name));
    if (missing.length > 0)
      fail(`ESM import: ${entry} lacks ${missing.join(', ')} (it exports: ${esm})`);
  }
  const cjs = run(
    process.execPath,
    ['-e', "const a = require('acon'); console.log(typeof a.createContextCompressor);"],
    consumer,
  );
  if (cjs.trim() !== 'function') fail(`require('acon') gave ${cjs}`);

  // The sim compressor, no server and no better-sqlite3: a large tool result is compressed.
  const sim = run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { createContextCompressor, loadGuidelines } from 'acon';
const reports = [];
const c = createContextCompressor({
  guidelines: await loadGuidelines(),
  model: { provider: 'sim' },
  thresholds: { obs: 200, hist: 100000, keepLast: 1 },
  onReport: (r) => reports.push(r),
});
const rows = JSON.stringify(Array.from({ length: 80 }, (_, i) => ({ id: i, title: 'Record ' + i, note: 'text the task does not need' })));
const out = await c.compress([
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: 'Find record 7.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: rows },
  { role: 'assistant', content: 'Looking.' },
]);
const r = reports[0];
console.log(JSON.stringify({ simulated: r.simulated, kinds: r.events.map((e) => e.kind), before: r.tokensBefore, after: r.tokensAfter, error: r.error?.message, n: out.length }));`,
    ],
    consumer,
  );
  const simResult = JSON.parse(sim);
  if (
    simResult.simulated !== true ||
    !simResult.kinds.includes('obs') ||
    !(simResult.after < simResult.before) ||
    simResult.error !== undefined
  ) {
    fail(`the sim compressor did not compress: ${sim}`);
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
    `import { createContextCompressor, loadGuidelines, type CompressionReport, type CustomCompressorModel } from 'acon';
import { aconMiddleware } from 'acon/ai-sdk';
import { aconMiddleware as aconLangChain } from 'acon/langchain';
import { aconInputFilter } from 'acon/openai-agents';

const compressor = createContextCompressor({
  guidelines: await loadGuidelines('obs@active,hist@active'),
  model: { baseURL: 'http://127.0.0.1:1/v1', model: 'student' },
  thresholds: { obs: 1024, hist: 4096, keepLast: 1 },
  onReport: (r: CompressionReport) => void (r.tokensBefore - r.tokensAfter),
});
const out = await compressor.compress([{ role: 'user', content: 'hello' }]);
const n: number = out.length;
void n;
const offline = createContextCompressor({ guidelines: await loadGuidelines(), model: { provider: 'sim' } });
void offline;
// Any model behind the compressor port.
const custom: CustomCompressorModel = {
  provider: 'custom',
  model: 'mine',
  complete: async ({ messages }) => ({ text: messages.map((m) => m.content).join('\\n') }),
};
void createContextCompressor({ guidelines: await loadGuidelines(), model: custom });
void [aconMiddleware, aconLangChain, aconInputFilter];
// Declarations are real: a wrong option type is an error.
// @ts-expect-error thresholds are numbers
createContextCompressor({ guidelines: await loadGuidelines(), model: { baseURL: 'x', model: 'm' }, thresholds: { obs: 'big' } });
`,
  );
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  run(process.execPath, [tsc, '-p', consumer], consumer);

  // docs/runtime.md's TypeScript, as a reader would paste it into this project.
  const snippets = tsSnippets(readFileSync(join(root, 'docs', 'runtime.md'), 'utf8'));
  for (const s of snippets.checked) writeFileSync(join(consumer, s.file), s.source);
  const tsconfig = JSON.parse(readFileSync(join(consumer, 'tsconfig.json'), 'utf8'));
  writeFileSync(
    join(consumer, 'tsconfig.docs.json'),
    JSON.stringify({ ...tsconfig, files: snippets.checked.map((s) => s.file) }),
  );
  run(process.execPath, [tsc, '-p', join(consumer, 'tsconfig.docs.json')], consumer);

  process.stdout.write(
    `pack-check: ok (npm pack, install without better-sqlite3, 4 ESM entries, require, tsc --strict, docs/runtime.md ts snippets ${snippets.checked.length} checked ${snippets.unchecked.length} unchecked, sim ${simResult.before} -> ${simResult.after} tokens)\n`,
  );
} finally {
  if (process.env.PACK_CHECK_KEEP) process.stdout.write(`pack-check: kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}

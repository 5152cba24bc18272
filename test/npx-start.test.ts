import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script, without types
import { buildInputsHash, staleReason, writeStamp } from '../scripts/build-inputs.mjs';
import { ACON_BIN, cleanEnv, tempDir } from './helpers/cli.js';
import { REPO } from './helpers/doc-commands.js';

/**
 * The README's first command is `npm ci && npx acon optimize --bench apptown` (issue #58). npm 11
 * runs a checkout's own bin by linking the checkout into its npx cache, which runs `prepare`; that
 * used to be a second full build with nothing printed but npm's spinner. `prepare` now skips the
 * build when dist/ was built from the sources as they are (scripts/build-inputs.mjs).
 */
describe('the build stamp', () => {
  function project(): string {
    const root = tempDir('acon-stamp-');
    mkdirSync(join(root, 'src/cli'), { recursive: true });
    mkdirSync(join(root, 'tasks/apptown'), { recursive: true });
    mkdirSync(join(root, 'dist/cli'), { recursive: true });
    mkdirSync(join(root, 'dist/runtime'), { recursive: true });
    writeFileSync(join(root, 'src/cli/main.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'tasks/apptown/t.yaml'), 'id: t\n');
    writeFileSync(join(root, 'tsconfig.json'), '{}\n');
    for (const out of ['dist/cli/main.js', 'dist/runtime/index.js', 'dist/task-yaml-index.json']) {
      writeFileSync(join(root, out), '');
    }
    return root;
  }

  it('is fresh right after a build and stale after any input changes', () => {
    const root = project();
    expect(staleReason(root)).toMatch(/build-inputs\.json is missing/);
    writeStamp(root);
    expect(staleReason(root)).toBeNull();

    writeFileSync(join(root, 'src/cli/main.ts'), 'export const a = 2;\n');
    expect(staleReason(root)).toMatch(/sources changed/);
    writeStamp(root);
    writeFileSync(join(root, 'src/cli/new.ts'), 'export {};\n');
    expect(staleReason(root)).toMatch(/sources changed/);
    writeStamp(root);
    writeFileSync(join(root, 'tasks/apptown/t.yaml'), 'id: u\n');
    expect(staleReason(root)).toMatch(/sources changed/);
    writeStamp(root);
    writeFileSync(join(root, 'tsconfig.json'), '{"compilerOptions":{}}\n');
    expect(staleReason(root)).toMatch(/sources changed/);
  });

  it('is stale when an output is missing, whatever the stamp says', () => {
    const root = project();
    writeStamp(root);
    rmSync(join(root, 'dist/runtime/index.js'));
    expect(staleReason(root)).toMatch(/dist\/runtime\/index\.js is missing/);
  });

  it('covers the files the build reads', () => {
    const { files } = buildInputsHash(REPO) as { files: number };
    const sources = readdirSync(join(REPO, 'src'), { recursive: true }).filter((f) =>
      String(f).endsWith('.ts'),
    ).length;
    expect(files).toBeGreaterThan(sources);
  });
});

describe('npx acon in a checkout that npm ci built', () => {
  it('runs the dry run without building again, and prints what node bin/acon.js prints', () => {
    const stamp = join(REPO, 'dist/.build-inputs.json');
    // The suite runs after `npm run build` (npm test), so the stamp matches the sources.
    expect(staleReason(REPO)).toBeNull();
    const before = [statSync(join(REPO, 'dist/cli/main.js')).mtimeMs, statSync(stamp).mtimeMs];

    const cache = tempDir('acon-npx-cache-');
    const args = ['optimize', '--bench', 'apptown', '--dry-run', '--db', join(cache, 'x.db')];
    const env = cleanEnv({ npm_config_cache: cache, npm_config_update_notifier: 'false' });
    const viaNpx = spawnSync('npx', ['--offline', 'acon', ...args], {
      cwd: REPO,
      env,
      encoding: 'utf8',
    });
    const viaNode = spawnSync(process.execPath, [ACON_BIN, ...args], {
      cwd: REPO,
      env,
      encoding: 'utf8',
    });

    expect(viaNpx.status).toBe(0);
    expect(viaNpx.stdout).toBe(viaNode.stdout);
    expect(viaNpx.stderr).toBe(viaNode.stderr);
    expect(viaNpx.stdout).toMatch(/plan: ut:obs:r1/);
    // npx went through its own path (the checkout linked into its fresh cache) ...
    expect(readdirSync(join(cache, '_npx')).length).toBe(1);
    // ... and the build did not run: neither the compiled CLI nor the stamp was written again.
    expect([statSync(join(REPO, 'dist/cli/main.js')).mtimeMs, statSync(stamp).mtimeMs]).toEqual(
      before,
    );
    expect(existsSync(join(cache, 'x.db'))).toBe(false);
  }, 120_000);
});

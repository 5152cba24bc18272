import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from './helpers/cli.js';

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, '..');
const HOOK = resolve(import.meta.dirname, 'fixtures/no-sqlite/register.mjs');

describe('better-sqlite3 missing', () => {
  it('the CLI says so and how to fix it, exit 2, no stack trace', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'acon-nosqlite-'));
    const out = await run(
      process.execPath,
      ['--import', HOOK, resolve(REPO, 'bin/acon.js'), 'runs', 'list'],
      { cwd, env: cleanEnv({}) },
    ).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/better-sqlite3 is not installed or not built/);
    expect(out.stderr).toContain('npm rebuild better-sqlite3');
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });

  it('the library entry still compresses with the sim compressor', async () => {
    const script = `
      import { createContextCompressor, loadGuidelines } from 'acon';
      const c = createContextCompressor({ guidelines: await loadGuidelines(), model: { provider: 'sim' } });
      const out = await c.compress([{ role: 'user', content: 'task' }]);
      console.log('ok', out.length);`;
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', HOOK, '--input-type=module', '-e', script],
      { cwd: REPO, env: cleanEnv({}) },
    );
    expect(stdout.trim()).toBe('ok 1');
    expect(stderr).toBe('');
  });
});

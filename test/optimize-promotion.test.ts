import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

/** The active version of a kind in `dir`: its ACTIVE file, else the shipped v0. */
function active(dir: string, kind: 'obs' | 'hist'): string {
  const file = join(dir, 'guidelines', kind, 'ACTIVE');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : `${kind}-0000`;
}

describe('acon optimize promotes only on purpose (issue #56)', () => {
  it('a trial run (--max-tasks 2 --candidates 1) leaves the active guidelines unchanged and says so', async () => {
    const cwd = tempDir('acon-promote-');
    const r = await runAcon(
      ['optimize', '--bench', 'apptown', '--max-tasks', '2', '--candidates', '1'],
      { cwd },
    );
    expect(r.stderr).toMatch(/^SIMULATED: provider sim/);
    expect(r.code).toBe(0);
    expect(active(cwd, 'obs')).toBe('obs-0000');
    expect(active(cwd, 'hist')).toBe('hist-0000');
    expect(r.stdout).toMatch(/active guidelines unchanged/);
    expect(r.stdout).not.toMatch(/now active/);
  }, 180_000);
});

import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

/**
 * Issue #60, case 8: `acon run --strategy acon` with the guidelines folder deleted ran on the
 * shipped v0 and exited 0, other guidelines than the ones learned there, without a word. Now a
 * run on the active guidelines whose folder is gone, while the database records versions
 * learned in it, exits 2 naming the folder and the two fixes; explicit versions still run, and a
 * fresh project (nothing learned) runs on the shipped seeds as before (docs/reliability.md).
 */
describe('a deleted guidelines folder (issue #60, case 8)', () => {
  it('stops a run on the active guidelines, naming the folder and the fixes, and stores no run', async () => {
    const cwd = tempDir();
    const optimize = await runAcon(['optimize', '--max-tasks', '1', '--candidates', '1'], { cwd });
    expect(optimize.code, optimize.stderr).toBe(0);
    expect(existsSync(join(cwd, 'guidelines'))).toBe(true);
    rmSync(join(cwd, 'guidelines'), { recursive: true });
    const before = await runAcon(['runs', '--json'], { cwd });

    for (const args of [
      ['run', '--strategy', 'acon', '--max-tasks', '1'],
      ['compare', '--strategies', 'raw,acon', '--max-tasks', '1'],
      ['optimize', '--max-tasks', '1', '--candidates', '1'],
    ]) {
      const res = await runAcon(args, { cwd });
      expect(res.code, `${args[0]}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toContain('the guidelines folder guidelines is missing');
      expect(res.stderr).toContain('runs/acon.db records versions learned in it (hist-0001');
      expect(res.stderr).toContain('--guidelines obs@0,hist@0');
      expect(res.stdout).toBe('');
      expect(existsSync(join(cwd, 'guidelines'))).toBe(false);
    }
    const after = await runAcon(['runs', '--json'], { cwd });
    expect(after.stdout).toBe(before.stdout);

    // The shipped seeds on purpose, and strategies that use no guidelines, still run.
    const seeds = await runAcon(
      ['run', '--strategy', 'acon', '--max-tasks', '1', '--guidelines', 'obs@0,hist@0'],
      { cwd },
    );
    expect(seeds.code, seeds.stderr).toBe(0);
    expect(seeds.stdout).toContain('acon[obs-0000,hist-0000]');
    const raw = await runAcon(['run', '--strategy', 'raw', '--max-tasks', '1'], { cwd });
    expect(raw.code, raw.stderr).toBe(0);
  });

  it('runs a fresh project (no folder, nothing learned) on the shipped seed versions', async () => {
    const cwd = tempDir();
    const res = await runAcon(['run', '--strategy', 'acon', '--max-tasks', '1'], { cwd });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('acon[obs-0000,hist-0000]');
  });
});

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';
import { SHORT_TASKS_ENV } from './helpers/env.js';

/** Every file under `dir` with a hash of its bytes: what "nothing written" compares. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/**
 * Issue 56: `--repeats` decides how many units the paired rule counts, so a resumed run that
 * changed it would judge its remaining candidates on other units than its first ones. The CLI
 * refuses it before anything is written.
 */
describe('acon optimize --resume with another --repeats', () => {
  it('is refused naming the flag and the recorded value, exit 2, nothing written', async () => {
    const cwd = tempDir();
    const trial = ['optimize', '--max-tasks', '1', '--candidates', '1', '--phases', 'ut'];
    const first = await runAcon([...trial, '--target', 'obs', '--repeats', '2', '--json'], {
      cwd,
      env: SHORT_TASKS_ENV,
    });
    expect(first.code, first.stderr).toBe(0);
    const runId = (JSON.parse(first.stdout) as { runId: string }).runId;
    const before = snapshot(cwd);
    expect(Object.keys(before)).toContain(join('runs', 'acon.db'));

    const changed = await runAcon(['optimize', '--resume', runId, '--repeats', '3'], {
      cwd,
      env: SHORT_TASKS_ENV,
    });
    expect(changed.code).toBe(2);
    expect(changed.stdout).toBe('');
    expect(changed.stderr).toBe(
      `error: --repeats 3 conflicts with run ${runId}, recorded with 2; drop --repeats ` +
        '(--resume continues a run exactly as recorded) or start a new run\n',
    );
    expect(snapshot(cwd)).toEqual(before);

    // The recorded value itself is no conflict: the flag only restates the run.
    const same = await runAcon(['optimize', '--resume', runId, '--repeats', '2', '--dry-run'], {
      cwd,
      env: SHORT_TASKS_ENV,
    });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('× 2 repeats');
  }, 120_000);
});

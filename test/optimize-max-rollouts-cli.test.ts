import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';
import { SHORT_TASKS_ENV } from './helpers/env.js';

const SIMULATED = /^SIMULATED: provider sim[^\n]*\n/;
const TRIAL = ['optimize', '--max-tasks', '2', '--candidates', '1', '--phases', 'ut'];

/**
 * Issue 56, Budget: `--max-rollouts N` stops an optimize run cleanly (exit 3, status budget) when
 * it would start rollout N+1, says how many ran and how to go on, and `--resume` with a larger
 * value finishes it.
 */
describe('acon optimize --max-rollouts', () => {
  it('stops with exit 3 and one error line, and --resume with a larger value finishes', async () => {
    const cwd = tempDir();
    const first = await runAcon([...TRIAL, '--target', 'obs', '--max-rollouts', '5', '--json'], {
      cwd,
      env: SHORT_TASKS_ENV,
    });
    expect(first.code).toBe(3);
    expect(first.stdout).toBe('');
    const m = new RegExp(
      SIMULATED.source +
        'error: rollout limit reached: 5 rollouts of this run ran \\(limit 5\\), finished stages ' +
        'are kept; raise the limit \\(--max-rollouts\\) and resume run (run-\\S+) \\(--resume\\)\\n$',
    ).exec(first.stderr);
    expect(m, first.stderr).not.toBeNull();
    const runId = m![1]!;
    const listed = await runAcon(['runs', 'list', '--json'], { cwd, env: SHORT_TASKS_ENV });
    const runs = JSON.parse(listed.stdout) as { id: string; status: string }[];
    expect(runs.find((r) => r.id === runId)?.status).toBe('budget');

    const resumed = await runAcon(
      ['optimize', '--resume', runId, '--max-rollouts', '100', '--json'],
      {
        cwd,
        env: SHORT_TASKS_ENV,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(SIMULATED.source + '$'));
    const out = JSON.parse(resumed.stdout) as { runId: string; plan: { maxRollouts: number } };
    expect(out.runId).toBe(runId);
    expect(out.plan.maxRollouts).toBe(100);
  }, 120_000);

  it('prints in the plan whether the planned rollouts fit, and --help states the default', async () => {
    const cwd = tempDir();
    const plan = await runAcon([...TRIAL, '--max-rollouts', '7', '--dry-run'], {
      cwd,
      env: SHORT_TASKS_ENV,
    });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(
      /\n {2}max rollouts: 7, stops after 7 of ~\d+ planned rollouts \(resume with a larger --max-rollouts\)\n/,
    );
    const fits = await runAcon([...TRIAL, '--max-rollouts', '100000', '--dry-run'], {
      cwd,
      env: SHORT_TASKS_ENV,
    });
    expect(fits.stdout).toMatch(/\n {2}max rollouts: 100000, fits \(up to \d+ planned\)\n/);
    const help = await runAcon(['optimize', '--help'], { cwd });
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('default: none');
    expect(help.stderr).toBe('');
  }, 120_000);
});

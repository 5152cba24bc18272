import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

/** Issue #24 item 8: a paid run prints its estimate and, without a terminal, is refused. */
describe('acon optimize on a paid provider', () => {
  it('prints the estimate and refuses without a terminal, naming --yes; nothing is stored', async () => {
    const cwd = tempDir();
    const res = await runAcon(['optimize', '--provider', 'openai'], {
      cwd,
      env: { OPENAI_API_KEY: 'sk-test-not-used' },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/cost \(estimate\): ~\$\d+\.\d\d at most/);
    expect(res.stderr).toContain('no terminal can confirm it; pass --yes to start it');
    const runs = await runAcon(['runs', '--json'], { cwd });
    expect(JSON.parse(runs.stdout)).toEqual([]);
  });

  it('accepts --confirm-above and --yes (with --dry-run only the plan prints, nothing asks)', async () => {
    const cwd = tempDir();
    const res = await runAcon(
      ['optimize', '--provider', 'openai', '--confirm-above', '100000', '--yes', '--dry-run'],
      { cwd, env: { OPENAI_API_KEY: 'sk-test-not-used' } },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).not.toContain('no terminal');
  });
});

/** Issue #24: compare (and run) ask before a paid run like optimize, from the same cost model. */
describe('acon compare on a paid provider', () => {
  it('prints the estimate and refuses without a terminal, naming --yes; nothing is stored', async () => {
    const cwd = tempDir();
    const res = await runAcon(['compare', '--provider', 'openai', '--split', 'dev'], {
      cwd,
      env: { OPENAI_API_KEY: 'sk-test-not-used' },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(
      /^estimate: \d+ rollouts · LLM calls: agent \d+, compressors \d+ · cost ~\$\d+\.\d\d at most/m,
    );
    expect(res.stderr).toContain('no terminal can confirm it; pass --yes to start it');
    const runs = await runAcon(['runs', '--json'], { cwd });
    expect(JSON.parse(runs.stdout)).toEqual([]);
  });

  it('prints no estimate and never asks for the sim provider', async () => {
    const cwd = tempDir();
    const sim = await runAcon(
      ['run', '--split', 'dev', '--strategy', 'raw', '--max-tasks', '1', '--json'],
      { cwd },
    );
    expect(sim.code, sim.stderr).toBe(0);
    expect(sim.stderr).not.toMatch(/estimate:|no terminal/);
  });
});

/** Issue #24 item 9: AppWorld tasks named with --tasks stand for every split. */
describe('acon optimize --bench appworld --tasks', () => {
  it('warns on stderr that the same tasks train, select and evaluate (the table is not held out)', async () => {
    const cwd = tempDir();
    const res = await runAcon(
      ['optimize', '--bench', 'appworld', '--tasks', '50e1ac9_1,fac291d_2', '--dry-run'],
      { cwd, env: { APPWORLD_ROOT: '' } },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('tasks: 2 train, 2 selection, 2 evaluation');
    expect(res.stderr).toMatch(/^warning: the same tasks serve several roles \(2 in train/m);
    expect(res.stderr).toContain('not held out');
    // The library names its options (`taskIds`); the CLI prints its flags.
    expect(res.stderr).toContain('Tasks named with --tasks or --task-file stand for every split');
  });
});

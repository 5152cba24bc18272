import { beforeAll, describe, expect, it } from 'vitest';
import { RunShowSchema } from '../src/report/run-show.js';
import { runAcon, tempDir } from './helpers/cli.js';

/** Issue #24 item 4: a filter naming nothing that exists is an error listing what does. */
describe('name filters (issue #24)', () => {
  let cwd: string;
  let runId: string;

  beforeAll(async () => {
    cwd = tempDir();
    const cmp = await runAcon(
      ['compare', '--split', 'dev', '--strategies', 'raw,naive,fifo', '--max-tasks', '3', '--json'],
      { cwd },
    );
    expect(cmp.code, cmp.stderr).toBe(0);
    runId = (JSON.parse(cmp.stdout) as { provenance: { runId: string } }).provenance.runId;
  });

  it('compare --max-tasks runs only the first N tasks of the split', async () => {
    const res = await runAcon(['runs', 'show', runId, '--json'], { cwd });
    expect(res.stderr).toBe('');
    expect(RunShowSchema.parse(JSON.parse(res.stdout)).rollouts).toHaveLength(9);
  });

  it('acon runs shows accuracy per split and keeps the bench column when narrow', async () => {
    const res = await runAcon(['runs'], { cwd, env: { COLUMNS: '70' } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^run +kind +bench /m);
    expect(res.stdout.replace(/\n +/g, ' ')).toContain('dev: raw');
    const json = await runAcon(['runs', '--json'], { cwd });
    const items = JSON.parse(json.stdout) as { conditions: { split: string }[] }[];
    expect(items[0]!.conditions.map((c) => c.split)).toEqual(['dev', 'dev', 'dev']);
  });

  it('runs show --condition bogus exits 2 and lists the conditions of the run', async () => {
    const res = await runAcon(['runs', 'show', runId, '--condition', 'bogus'], { cwd });
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /unknown condition "bogus"; use one of: \w+, \w+, \w+ \(the conditions/,
    );
    for (const c of ['raw', 'naive', 'fifo']) expect(res.stderr).toContain(c);
  });

  it('runs show --task with an unknown id exits 2 and lists the tasks of the run', async () => {
    const res = await runAcon(['runs', 'show', runId, '--task', 'dev-999'], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/unknown task "dev-999"; use one of: dev-001-/);
  });

  it('an unknown --split exits 2 and lists the splits', async () => {
    const res = await runAcon(['run', '--split', 'bogus', '--strategy', 'raw'], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/unknown split "bogus"; use one of: .*dev.*test.*train|train/);
  });

  it('an unknown --tasks id exits 2 and lists task ids of the split', async () => {
    const res = await runAcon(['run', '--strategy', 'raw', '--tasks', 'town-dev-001'], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/unknown task "town-dev-001"; use one of: dev-001-/);
  });

  it('an unknown strategy exits 2 and lists the strategies', async () => {
    const res = await runAcon(['compare', '--strategies', 'raw,bogus'], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown strategy "bogus"; use one of: raw, fifo, masking');
  });

  it.each([[','], [' , '], ['']])(
    '--tasks "%s" is refused instead of running every task',
    async (v) => {
      const res = await runAcon(['run', '--strategy', 'raw', '--tasks', v], { cwd });
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('--tasks names nothing');
    },
  );

  it('runs show keeps the condition column and prints cut failure reasons in full', async () => {
    const res = await runAcon(['runs', 'show', runId, '--failed'], {
      cwd,
      env: { COLUMNS: '70' },
    });
    expect(res.code, res.stderr).toBe(0);
    const json = await runAcon(['runs', 'show', runId, '--failed', '--json'], { cwd });
    const rows = RunShowSchema.parse(JSON.parse(json.stdout)).rollouts;
    expect(rows.length).toBeGreaterThan(0);
    expect(res.stdout).toMatch(/^rollout +condition +task/m);
    const flat = res.stdout.replace(/\n +/g, ' ');
    for (const r of rows) expect(flat).toContain(r.reason!);
  });
});

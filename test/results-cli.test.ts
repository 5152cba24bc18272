import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { RolloutShowSchema } from '../src/report/rollout-view.js';
import { RunShowSchema } from '../src/report/run-show.js';
import { RunsListSchema } from '../src/report/runs-list.js';
import { runAcon, tempDir } from './helpers/cli.js';

const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));

describe('seeing the results (issue 15), as a user runs it', () => {
  let cwd: string;
  let runId: string;
  let compareOut: string;
  let devTasks: number;
  let firstTask: string;

  beforeAll(async () => {
    cwd = tempDir();
    const cmp = await runAcon(
      ['compare', '--bench', 'apptown', '--split', 'dev', '--strategies', 'raw,masking,naive'],
      { cwd, env: { COLUMNS: '100' } },
    );
    expect(cmp.code, cmp.stderr).toBe(0);
    compareOut = cmp.stdout;
    runId = /as run (\S+)/.exec(cmp.stdout)![1]!;
    const tasks = await runAcon(['tasks', 'list', '--split', 'dev', '--json'], { cwd });
    const list = JSON.parse(tasks.stdout) as { id: string }[];
    devTasks = list.length;
    firstTask = list[0]!.id;
    // A whole dev compare (about 13 s of CPU): on a loaded machine it can exceed the default hook limit.
  }, 180_000);

  it('compare at COLUMNS=100 prints no line over 100 columns, and the run id', () => {
    expect(widest(compareOut)).toBeLessThanOrEqual(100);
    expect(compareOut).toContain(runId);
    expect(compareOut).toContain('acc% [95% CI] = accuracy in %, 95% bootstrap CI');
  });

  it('runs show --json has one element per rollout (3 conditions × the dev tasks)', async () => {
    const res = await runAcon(['runs', 'show', runId, '--json'], { cwd });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    const show = RunShowSchema.parse(JSON.parse(res.stdout));
    expect(devTasks).toBeGreaterThan(0);
    expect(show.rollouts).toHaveLength(3 * devTasks);
    expect(show.run.simulated).toBe(true);
  });

  it('runs show filters failed rollouts of one condition and names why each failed', async () => {
    const res = await runAcon(
      ['runs', 'show', runId, '--failed', '--condition', 'naive', '--json'],
      {
        cwd,
      },
    );
    const show = RunShowSchema.parse(JSON.parse(res.stdout));
    expect(show.rollouts.length).toBeGreaterThan(0);
    for (const r of show.rollouts) {
      expect(r).toMatchObject({ condition: 'naive', success: false });
      expect(r.reason).toBeTruthy();
    }
    const table = await runAcon(['runs', 'show', runId, '--failed'], {
      cwd,
      env: { COLUMNS: '100' },
    });
    expect(table.stderr).toBe('');
    expect(widest(table.stdout)).toBeLessThanOrEqual(100);
    expect(table.stdout).toContain('SIMULATED');
    expect(table.stdout).toContain(show.rollouts[0]!.id.slice(0, 8));
  });

  it('rollout show prints a trajectory by id prefix, folded unless --full', async () => {
    const show = RunShowSchema.parse(
      JSON.parse((await runAcon(['runs', 'show', runId, '--failed', '--json'], { cwd })).stdout),
    );
    const id = show.rollouts[0]!.id;
    const folded = await runAcon(['rollout', 'show', id.slice(0, 8)], {
      cwd,
      env: { COLUMNS: '100' },
    });
    expect(folded.code, folded.stderr).toBe(0);
    expect(folded.stderr).toBe('');
    expect(folded.stdout).toContain(`rollout ${id}`);
    expect(folded.stdout).toMatch(/── step 0 · prompt [\d,]+ tokens/);
    expect(folded.stdout).toContain('--full shows all');
    expect(widest(folded.stdout)).toBeLessThanOrEqual(100);
    const full = await runAcon(['rollout', 'show', id, '--full'], { cwd });
    expect(full.stdout.length).toBeGreaterThan(folded.stdout.length);
    expect(full.stdout).not.toContain('--full shows all');
    const json = RolloutShowSchema.parse(
      JSON.parse((await runAcon(['rollout', 'show', id, '--json'], { cwd })).stdout),
    );
    expect(json.steps).toHaveLength(show.rollouts[0]!.steps);
  });

  it('runs lists accuracy per condition and models within 100 columns', async () => {
    const res = await runAcon(['runs'], { cwd, env: { COLUMNS: '100' } });
    expect(res.stderr).toBe('');
    expect(widest(res.stdout)).toBeLessThanOrEqual(100);
    expect(res.stdout).toMatch(/ sim\* /);
    expect(res.stdout).not.toContain('sim/gpt-4.1');
    expect(res.stdout).toMatch(/raw \d+\.\d \(\d+\)/);
    const json = RunsListSchema.parse(
      JSON.parse((await runAcon(['runs', '--json'], { cwd })).stdout),
    );
    const conditions = json.find((r) => r.id === runId)!.conditions;
    expect(conditions.map((c) => c.condition).sort()).toEqual(['masking', 'naive', 'raw']);
    for (const c of conditions) expect(c.rollouts).toBe(devTasks);
  });

  it('report writes a page that names the run and loads nothing from outside', async () => {
    const file = join(cwd, 'out', 'report.html');
    const res = await runAcon(['report', runId, '--html', file], { cwd });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(runId);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain(`<code id="run-id">${runId}</code>`);
    expect(html).toContain('SIMULATED');
    expect(html).not.toMatch(/<script[^>]*\ssrc\s*=|<link[^>]*\shref\s*=|@import|<iframe/i);
  });

  it('a missing run is an error that says how to list runs', async () => {
    const res = await runAcon(['runs', 'show', 'run-nope'], { cwd });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/no run run-nope .*acon runs/);
  });

  it('runs rm deletes a run and all its rows; prune keeps the newest N', async () => {
    const dir = tempDir();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await runAcon(['run', '--strategy', 'naive', '--tasks', firstTask], {
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(0);
      ids.push(/as run (\S+)/.exec(r.stdout)![1]!);
    }
    const db = join(dir, 'runs', 'acon.db');
    const rowsOf = (runId: string) => {
      const conn = new Database(db, { readonly: true });
      const one = (sql: string) => (conn.prepare(sql).get(runId) as { n: number }).n;
      const n = {
        runs: one('SELECT COUNT(*) AS n FROM runs WHERE id = ?'),
        rollouts: one('SELECT COUNT(*) AS n FROM rollouts WHERE run_id = ?'),
        steps: one('SELECT COALESCE(SUM(steps), 0) AS n FROM rollouts WHERE run_id = ?'),
        calls: one('SELECT COUNT(*) AS n FROM calls c JOIN runs r ON r.n = c.run WHERE r.id = ?'),
        docs: one('SELECT COUNT(*) AS n FROM docs d JOIN runs r ON r.n = d.run WHERE r.id = ?'),
        all: (conn.prepare('SELECT COUNT(*) AS n FROM docs').get() as { n: number }).n,
      };
      conn.close();
      return n;
    };
    const before = rowsOf(ids[0]!);
    expect(before.steps).toBeGreaterThan(0);

    const typo = await runAcon(['runs', 'rm', ids[0]!, 'run-typo'], { cwd: dir });
    expect(typo.code).not.toBe(0);
    expect(rowsOf(ids[0]!)).toEqual(before);

    const rm = await runAcon(['runs', 'rm', ids[0]!], { cwd: dir });
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toMatch(/deleted run .* \(1 rollouts, \d+ LLM calls\)/);
    const after = rowsOf(ids[0]!);
    expect(after).toMatchObject({ runs: 0, rollouts: 0, steps: 0, calls: 0, docs: 0 });
    // The other runs' documents are still there.
    expect(before.docs).toBeGreaterThan(0);
    expect(after.all).toBe(before.all - before.docs);

    const dry = await runAcon(['runs', 'prune', '--keep', '1', '--dry-run'], { cwd: dir });
    expect(dry.stdout).toContain(`would delete run ${ids[1]}`);
    expect(dry.stdout).not.toContain(ids[2]!);
    expect(rowsOf(ids[1]!).runs).toBe(1);
    const prune = await runAcon(['runs', 'prune', '--keep', '1'], { cwd: dir });
    expect(prune.code, prune.stderr).toBe(0);
    const left = RunsListSchema.parse(
      JSON.parse((await runAcon(['runs', '--json'], { cwd: dir })).stdout),
    );
    expect(left.map((r) => r.id)).toEqual([ids[2]]);
  });
});

describe('acon schema', () => {
  it('prints the JSON Schema of a --json shape, and names the shapes it knows', async () => {
    const cwd = tempDir();
    const res = await runAcon(['schema', 'runs-show'], { cwd });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    const schema = JSON.parse(res.stdout) as {
      type: string;
      required: string[];
      properties: { rollouts: { type: string } };
    };
    expect(schema.type).toBe('object');
    expect(schema.required).toContain('rollouts');
    expect(schema.properties.rollouts.type).toBe('array');
    const bad = await runAcon(['schema', 'nope'], { cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'use one of: runs, runs-show, rollout-show, compare, optimize, optimize-plan, optimize-traces, replay, report-data',
    );
    const optimize = await runAcon(['schema', 'optimize'], { cwd });
    expect(optimize.code, optimize.stderr).toBe(0);
    const o = JSON.parse(optimize.stdout) as { required: string[]; description: string };
    expect(o.required).toEqual(expect.arrayContaining(['runId', 'plan', 'stages', 'tables']));
    expect(o.description).toBe('acon optimize --json');
  });
});

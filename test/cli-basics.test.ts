import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';
import { SHORT_TASKS_ENV } from './helpers/env.js';
import { storeWithRuns } from './helpers/store.js';

describe('acon CLI basics', () => {
  it('names the database and the fix when a read-only command meets a damaged page', async () => {
    const cwd = tempDir();
    const file = join(cwd, 'acon.db');
    storeWithRuns(file, 200);
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    const page = Math.floor(bytes.length / pageSize / 2);
    bytes.fill(0x5a, page * pageSize, (page + 1) * pageSize);
    writeFileSync(file, bytes);

    const r = await runAcon(['runs', '--db', file], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: .*acon\.db: the database is damaged \(.+\); restore it from a backup, or use --db/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('prints help with examples for the program and every command', async () => {
    const cwd = tempDir();
    const top = await runAcon(['--help'], { cwd });
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('Examples:');
    for (const cmd of [
      'init',
      'tasks',
      'run',
      'compare',
      'optimize',
      'replay',
      'guidelines',
      'runs',
      'export',
      'lint',
    ]) {
      expect(top.stdout).toContain(cmd);
      const help = await runAcon([cmd, '--help'], { cwd });
      expect(help.code, cmd).toBe(0);
      expect(help.stdout, cmd).toContain('Examples:');
    }
  });

  it('writes a commented config with acon init and refuses to overwrite it', async () => {
    const cwd = tempDir();
    const first = await runAcon(['init'], { cwd });
    expect(first.code).toBe(0);
    const text = readFileSync(join(cwd, 'acon.config.yaml'), 'utf8');
    expect(text).toContain('t_obs: 1024');
    expect(text).toContain('# ');
    const again = await runAcon(['init'], { cwd });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
  });

  it.each([
    [
      'malformed YAML',
      'context:\n  t_obs: [1\n',
      /acon\.config\.yaml: line \d+, column \d+: invalid YAML/,
    ],
    [
      'a wrong type',
      'context:\n  t_obs: many\n',
      /acon\.config\.yaml: context\.t_obs: expected number, got "many"/,
    ],
    ['an unknown key', 'contxt:\n  t_obs: 5\n', /acon\.config\.yaml: contxt: unknown setting/],
    [
      'a misspelt AppWorld /initialize option',
      'appworld:\n  initialize:\n    timout_seconds: 60\n',
      /acon\.config\.yaml: appworld\.initialize\.timout_seconds: unknown setting; .*valid here: .*timeout_seconds/,
    ],
  ])(
    'reports %s in one line naming file and field, exit 2, no stack',
    async (_name, yaml, pattern) => {
      const cwd = tempDir();
      writeFileSync(join(cwd, 'acon.config.yaml'), yaml);
      const res = await runAcon(['run', '--bench', 'apptown', '--split', 'dev'], { cwd });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(pattern);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).not.toContain('    at ');
      const verbose = await runAcon(['--verbose', 'run', '--bench', 'apptown'], { cwd });
      expect(verbose.stderr).toContain('    at ');
    },
  );

  it.each([
    [['run', '--bogus'], /unknown option '--bogus'/],
    [['runs', 'show'], /missing required argument 'run'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['runs', 'show', 'run-20261124-000000-abcd'], /no run run-20261124-000000-abcd/],
    [['guidelines', 'show', 'obs-0097'], /guideline obs-0097 not found/],
  ])('exits 2 on wrong usage or a name that does not exist: acon %j', async (args, pattern) => {
    const res = await runAcon(args, { cwd: tempDir() });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(pattern);
  });

  it('runs only the first N tasks with --max-tasks, of the split or of --tasks', async () => {
    const cwd = tempDir();
    const env = SHORT_TASKS_ENV;
    const split = await runAcon(
      ['run', '--strategy', 'raw', '--split', 'dev', '--max-tasks', '2', '--json'],
      { cwd, env },
    );
    // With --json only the SIMULATED label goes to stderr.
    expect(split.stderr).toMatch(/^SIMULATED: [^\n]*\n$/);
    expect(split.code).toBe(0);
    const parsed = JSON.parse(split.stdout) as { conditions: { tasks: number }[] };
    expect(parsed.conditions[0]?.tasks).toBe(2);
    const listed = await runAcon(['tasks', 'list', '--split', 'dev', '--json'], { cwd, env });
    const ids = (JSON.parse(listed.stdout) as { id: string }[]).slice(0, 3).map((t) => t.id);
    const named = await runAcon(
      ['run', '--strategy', 'raw', '--tasks', ids.join(','), '--max-tasks', '1', '--json'],
      { cwd, env },
    );
    expect(named.code).toBe(0);
    expect(
      (JSON.parse(named.stdout) as { conditions: { tasks: number }[] }).conditions[0]?.tasks,
    ).toBe(1);
    const bad = await runAcon(['run', '--max-tasks', '0'], { cwd, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-tasks');
  });

  it('rejects an unknown strategy with the list of valid ones', async () => {
    const cwd = tempDir();
    const res = await runAcon(['run', '--strategy', 'magic'], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown strategy "magic"');
    expect(res.stderr).toContain('masking');
  });
});

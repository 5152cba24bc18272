import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

/**
 * Issue #31, item 9: a command stopped by bad input writes nothing. The database (runs/acon.db,
 * the default) is opened for writing only after the config, the benchmark's tasks, the
 * guideline versions, the QA data and the endpoint keys are validated; an SQLite file of
 * another program given as --db is refused and left as it was.
 */

/** The files under `dir`, relative, sorted (what a command left behind). */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

const COMPARE = ['compare', '--bench', 'apptown', '--split', 'dev', '--strategies', 'raw'];

describe('bad input leaves no database behind', () => {
  it.each([
    {
      what: 'a config error',
      setup: (cwd: string) =>
        writeFileSync(join(cwd, 'acon.config.yaml'), 'run:\n  concurency: 2\n'),
      args: COMPARE,
      stderr: /concurency/,
    },
    {
      what: 'a task file error',
      setup: (cwd: string) => {
        mkdirSync(join(cwd, 'tasks'));
        writeFileSync(
          join(cwd, 'tasks', 'dev-900-broken.yaml'),
          'id: dev-900-broken\nsplit: dev\n',
        );
        writeFileSync(join(cwd, 'acon.config.yaml'), 'apptown:\n  tasks_dir: tasks\n');
      },
      args: COMPARE,
      stderr: /dev-900-broken\.yaml/,
    },
    {
      what: 'a guideline version that does not exist',
      setup: () => {},
      args: [
        'run',
        '--bench',
        'apptown',
        '--split',
        'dev',
        '--strategy',
        'acon',
        '--guidelines',
        'obs@97,hist@0',
      ],
      stderr: /97/,
    },
    {
      what: 'missing QA data',
      setup: () => {},
      args: ['compare', '--bench', 'qa', '--qa-data', 'nope.json', '--strategies', 'raw'],
      stderr: /nope\.json/,
    },
    {
      what: 'an unset API key',
      setup: () => {},
      args: [...COMPARE, '--provider', 'openai'],
      stderr: /OPENAI_API_KEY is not set/,
    },
    {
      what: 'runs rm of a run in a database that does not exist',
      setup: () => {},
      args: ['runs', 'rm', 'run-20261124-000000-abcd'],
      stderr: /no run run-20261124-000000-abcd/,
    },
    {
      what: 'a config path that is a folder (issue #60, case 7)',
      setup: (cwd: string) => mkdirSync(join(cwd, 'acon.config.yaml')),
      args: ['run', '--strategy', 'raw', '--max-tasks', '1'],
      stderr: /acon\.config\.yaml.*is a folder, not a config file/,
    },
    {
      what: 'a view in a foreign SQLite file given as --db (issue #60, case 5)',
      setup: (cwd: string) => {
        const db = new Database(join(cwd, 'f.db'));
        db.exec('CREATE VIEW v AS SELECT 1');
        db.close();
      },
      args: ['run', '--strategy', 'raw', '--max-tasks', '1', '--db', 'f.db'],
      stderr: /view v/,
    },
    {
      what: 'an unknown optimize split',
      setup: () => {},
      args: ['optimize', '--bench', 'apptown', '--train-split', 'trian', '--max-tasks', '1'],
      stderr: /trian/,
    },
  ])(
    '$what stops the command with exit code 2 and creates no file',
    async ({ setup, args, stderr }) => {
      const cwd = tempDir();
      setup(cwd);
      const before = files(cwd);
      const r = await runAcon(args, { cwd });
      // Every input error exits 2, a missing file or version as much as a malformed one.
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(stderr);
      expect(files(cwd)).toEqual(before);
    },
    60_000,
  );

  it('refuses --db naming an SQLite file of another program, and leaves it as it was', async () => {
    const cwd = tempDir();
    const file = join(cwd, 'notes.db');
    const db = new Database(file);
    db.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me')");
    db.close();
    const bytes = readFileSync(file);
    const r = await runAcon([...COMPARE, '--tasks', 'dev-001-music-phone-wallet', '--db', file], {
      cwd,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: is an SQLite database of another program`);
    // The store names its option (`run.db`); the CLI says the flag that sets it.
    expect(r.stderr).toContain('point --db (or ACON_DB) to a new file or an acon database');
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
    const list = await runAcon(['runs', '--db', file], { cwd });
    expect(list.code).toBe(2);
    expect(list.stderr).toContain('of another program');
    expect(files(cwd)).toEqual(['notes.db']);
  }, 60_000);
});

import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

/**
 * Issue #60, case 6: a bad number is refused at the command boundary, before the database, a
 * run, a guideline or an output file exists. For every command and each numeric flag, bad
 * values exit 2 with a message naming the flag and the value, print nothing on stdout and leave
 * the (empty) working folder empty. Before, `acon run --concurrency 0` refused the value only
 * after it had created runs/acon.db.
 */

type Row = { command: string; args: string[]; flag: string; bad: string[] };

const RUN = ['run', '--strategy', 'raw', '--max-tasks', '1'];
const COMPARE = ['compare', '--strategies', 'raw,masking', '--max-tasks', '1'];
const OPTIMIZE = ['optimize', '--max-tasks', '1'];
const EXPORT = ['export', '--role', 'agent', '--format', 'openai', '--out', 'out.jsonl'];
const POSITIVE_INT = ['0', '-3', 'abc', '1.5'];
const POSITIVE = ['0', '-3', 'abc'];

const ROWS: Row[] = [
  { command: 'run', args: ['run', '--strategy', 'raw'], flag: '--max-tasks', bad: POSITIVE_INT },
  { command: 'run', args: RUN, flag: '--concurrency', bad: POSITIVE_INT },
  { command: 'run', args: RUN, flag: '--budget-usd', bad: POSITIVE },
  { command: 'run', args: RUN, flag: '--confirm-above', bad: POSITIVE },
  {
    command: 'compare',
    args: ['compare', '--strategies', 'raw'],
    flag: '--max-tasks',
    bad: POSITIVE_INT,
  },
  { command: 'compare', args: COMPARE, flag: '--concurrency', bad: POSITIVE_INT },
  { command: 'compare', args: COMPARE, flag: '--budget-usd', bad: POSITIVE },
  { command: 'compare', args: COMPARE, flag: '--confirm-above', bad: POSITIVE },
  { command: 'optimize', args: ['optimize'], flag: '--max-tasks', bad: POSITIVE_INT },
  { command: 'optimize', args: OPTIMIZE, flag: '--rounds', bad: POSITIVE_INT },
  { command: 'optimize', args: OPTIMIZE, flag: '--candidates', bad: POSITIVE_INT },
  { command: 'optimize', args: OPTIMIZE, flag: '--train-tasks', bad: ['-3', 'abc', '1.5'] },
  { command: 'optimize', args: OPTIMIZE, flag: '--select-tasks', bad: ['-3', 'abc', '1.5'] },
  { command: 'optimize', args: OPTIMIZE, flag: '--budget-usd', bad: POSITIVE },
  { command: 'optimize', args: OPTIMIZE, flag: '--max-rollouts', bad: POSITIVE_INT },
  { command: 'optimize', args: OPTIMIZE, flag: '--confirm-above', bad: POSITIVE },
  { command: 'export', args: EXPORT, flag: '--max-tokens', bad: POSITIVE_INT },
  { command: 'export', args: EXPORT, flag: '--val-ratio', bad: ['-3', 'abc', '0.95'] },
  { command: 'export', args: EXPORT, flag: '--seed', bad: ['abc', '1.5'] },
  {
    command: 'lint',
    args: ['lint', 'in.jsonl', '--format', 'openai'],
    flag: '--max-tokens',
    bad: POSITIVE_INT,
  },
  {
    command: 'report',
    args: ['report', 'run-x', '--html', 'r.html'],
    flag: '--max-trajectories',
    bad: POSITIVE_INT,
  },
  { command: 'runs prune', args: ['runs', 'prune'], flag: '--keep', bad: POSITIVE_INT },
  {
    command: 'guidelines diff',
    args: ['guidelines', 'diff', 'obs-0000'],
    flag: '--unified',
    bad: ['-3', 'abc', '1.5'],
  },
  {
    command: 'proxy',
    args: ['proxy', '--upstream', 'http://127.0.0.1:9/v1'],
    flag: '--port',
    bad: ['-3', 'abc', '70000'],
  },
  ...(
    [
      ['--max-body-mb', POSITIVE],
      ['--max-compress-mb', POSITIVE],
      ['--max-inflight', POSITIVE_INT],
      ['--max-compressions', POSITIVE_INT],
      ['--compression-deadline-s', POSITIVE],
      ['--shutdown-grace-s', ['-3', 'abc']],
    ] as const
  ).map(([flag, bad]) => ({
    command: 'proxy',
    args: ['proxy', '--upstream', 'http://127.0.0.1:9/v1'],
    flag,
    bad: [...bad],
  })),
];

const CASES = ROWS.flatMap((row) => row.bad.map((value) => ({ ...row, value })));

describe('a bad number at the command boundary (issue #60, case 6)', () => {
  it.concurrent.each(CASES)(
    '$command $flag $value: exit 2, the flag named, nothing printed on stdout, no file',
    async ({ args, flag, value }) => {
      const cwd = tempDir();
      // `--flag=value`: a value that starts with a dash is the flag's, as a user typing -3 means.
      const res = await runAcon([...args, `${flag}=${value}`], { cwd });
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(flag);
      expect(res.stderr).toContain(`"${value}"`);
      expect(res.stdout).toBe('');
      expect(readdirSync(cwd, { recursive: true })).toEqual([]);
    },
  );

  it('takes a value after a space that starts with a dash as the flag value too', async () => {
    const cwd = tempDir();
    const res = await runAcon([...RUN, '--concurrency', '-3'], { cwd });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain('--concurrency must be a whole number ≥ 1, got "-3"');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it.each([
    ['run:\n  concurrency: 0\n', 'run.concurrency'],
    ['context:\n  t_obs: -3\n', 'context.t_obs'],
  ])(
    'refuses a bad number in acon.config.yaml before any file is made (%j)',
    async (yaml, field) => {
      const cwd = tempDir();
      writeFileSync(join(cwd, 'acon.config.yaml'), yaml);
      const res = await runAcon(RUN, { cwd });
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(field);
      expect(res.stdout).toBe('');
      expect(readdirSync(cwd, { recursive: true })).toEqual(['acon.config.yaml']);
    },
  );
});

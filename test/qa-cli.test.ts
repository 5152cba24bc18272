import { cpSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

const FIXTURE = resolve(import.meta.dirname, 'fixtures/qa/hotpot-mini.json');
/** stderr without the progress lines printed every 10 s when it is not a terminal. */
const withoutProgress = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => !/^\w+ \d+\/\d+ \(\d+%\) · /.test(l))
    .join('\n');
const SIMULATED_ONLY = /^SIMULATED: provider sim[^\n]*\n$/;

type Condition = {
  condition: string;
  tasks: number;
  exactMatch: number | null;
  f1: number | null;
  meanPeakTokens: number;
};

describe('acon with --bench qa, as a user runs it (offline, sim)', () => {
  it('tasks list --json lists at least 100 tasks, and tasks show prints the questions', async () => {
    const cwd = tempDir();
    const list = await runAcon(['tasks', 'list', '--bench', 'qa', '--json'], { cwd });
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    const tasks = JSON.parse(list.stdout) as { id: string; split: string }[];
    expect(tasks.length).toBeGreaterThanOrEqual(100);
    expect(new Set(tasks.map((t) => t.split))).toEqual(new Set(['train', 'dev', 'test']));
    const show = await runAcon(['tasks', 'show', 'qa-dev-04q-1', '--bench', 'qa'], { cwd });
    expect(show.stderr).toBe('');
    expect(show.stdout).toMatch(/Answer these 4 questions:\n1\. /);
  });

  it('compare --json reports exactMatch, f1 and meanPeakTokens; naive compression loses facts', async () => {
    const cwd = tempDir();
    const r = await runAcon(
      [
        'compare',
        '--bench',
        'qa',
        '--split',
        'dev',
        '--strategies',
        'raw,naive',
        '--json',
        '--tasks',
        // Tasks of 8 and 16 questions: their histories pass T_hist many times, so the generic
        // v0 summaries have facts to lose (in 1- and 2-question tasks they rarely fire at all).
        'qa-dev-02q-1,qa-dev-08q-1,qa-dev-16q-1',
      ],
      { cwd },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(withoutProgress(r.stderr)).toMatch(SIMULATED_ONLY);
    const out = JSON.parse(r.stdout) as {
      provenance: { simulated: boolean };
      conditions: Condition[];
    };
    expect(out.provenance.simulated).toBe(true);
    const [raw, naive] = out.conditions;
    expect(raw).toMatchObject({ condition: 'raw', tasks: 3, exactMatch: 1, f1: 1 });
    expect(naive!.condition).toMatch(/^naive/);
    expect(naive!.f1).toBeLessThan(raw!.f1!);
    expect(naive!.meanPeakTokens).toBeGreaterThan(0);
    expect(naive!.meanPeakTokens).toBeLessThan(raw!.meanPeakTokens);
  });

  it('the table shows EM and F1 columns', async () => {
    const r = await runAcon(
      ['run', '--bench', 'qa', '--split', 'dev', '--strategy', 'raw', '--tasks', 'qa-dev-01q-1'],
      { cwd: tempDir() },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\bEM\b.*\bF1\b/);
    expect(r.stdout).toContain('SIMULATED');
  });

  it('--qa-data runs HotpotQA-format questions', async () => {
    const r = await runAcon(
      [
        'compare',
        '--bench',
        'qa',
        '--qa-data',
        FIXTURE,
        '--split',
        'train',
        '--strategies',
        'raw',
        '--json',
      ],
      { cwd: tempDir() },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { conditions: Condition[] };
    expect(out.conditions[0]).toMatchObject({ condition: 'raw', exactMatch: 1, f1: 1 });
    const missing = await runAcon(['tasks', 'list', '--bench', 'qa', '--qa-data', 'nope.json'], {
      cwd: tempDir(),
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.json: --qa-data: cannot read it \(ENOENT/);
  });

  it('optimize and export work with --bench qa', async () => {
    const cwd = tempDir();
    cpSync(resolve(import.meta.dirname, '../guidelines'), join(cwd, 'guidelines'), {
      recursive: true,
    });
    const opt = await runAcon(
      [
        'optimize',
        '--bench',
        'qa',
        '--max-tasks',
        '2',
        '--candidates',
        '1',
        '--target',
        'obs',
        '--json',
      ],
      { cwd },
    );
    expect(opt.code, opt.stderr).toBe(0);
    const result = JSON.parse(opt.stdout) as { tables: { split: string; rows: Condition[] }[] };
    expect(result.tables.map((t) => t.split)).toEqual(['dev', 'test']);
    for (const t of result.tables) for (const row of t.rows) expect(row.f1).not.toBeNull();
    const exp = await runAcon(
      ['export', '--role', 'obs', '--format', 'openai', '--out', 'obs.jsonl'],
      {
        cwd,
      },
    );
    expect(exp.code, exp.stderr).toBe(0);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

/**
 * The README's path from a clean folder (issue #24): optimize, then a QA compare, then the
 * README's export command. A smaller optimize than the README's (--max-tasks 2) keeps it quick.
 */
describe('optimize, a QA compare, then export (issue #24)', () => {
  let cwd: string;
  let optRun: string;
  let optOut: string;

  beforeAll(async () => {
    cwd = tempDir();
    const opt = await runAcon(
      ['optimize', '--target', 'hist', '--max-tasks', '2', '--candidates', '1'],
      { cwd },
    );
    expect(opt.code, opt.stderr).toBe(0);
    optOut = opt.stdout;
    optRun = /as run (\S+)/.exec(opt.stdout)![1]!;
    const cmp = await runAcon(
      [
        'compare',
        '--bench',
        'qa',
        '--split',
        'dev',
        '--strategies',
        'raw,naive',
        '--max-tasks',
        '2',
      ],
      { cwd },
    );
    expect(cmp.code, cmp.stderr).toBe(0);
    // raw and naive (v0) belong to no benchmark: nothing to warn about.
    expect(cmp.stderr).not.toContain('warning');
  }, 600_000);

  it("the README's export takes the optimize run, not the newer QA compare, and its meta names it", async () => {
    const res = await runAcon(
      ['export', '--role', 'hist', '--format', 'openai', '--out', 'hist.jsonl'],
      { cwd },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    const meta = JSON.parse(readFileSync(join(cwd, 'hist.meta.json'), 'utf8')) as {
      source: { runId: string; kind: string; bench: string };
    };
    expect(meta.source).toMatchObject({ runId: optRun, kind: 'optimize', bench: 'apptown' });
  });

  it('optimize ends with a verdict per split and marks the Pareto rows', () => {
    const flat = optOut.replace(/\n +/g, ' ');
    // Selection is drawn grouped by default (issue #56): its table is the `selection` split's.
    for (const split of ['selection', 'test']) {
      expect(flat).toMatch(new RegExp(`^verdict ${split}: .* vs raw \\(CI.*; Pareto: \\S`, 'm'));
    }
    expect(optOut).toMatch(/^version +guidelines .* P /m);
    expect(optOut).toContain('★');
  });

  it('guideline files of the optimize run record their benchmark', () => {
    const file = /new guideline files \([1-9]\d*\): ([^\s,]+)/.exec(
      optOut.replace(/\n +/g, ' '),
    )![1]!;
    expect(readFileSync(join(cwd, file), 'utf8')).toMatch(/^bench: apptown$/m);
  });

  it('acon guidelines learned on apptown, used on qa, print one warning line and --json carries it', async () => {
    // Whether a 2-task optimize accepts a candidate depends on the sim's draws (issue 22: v0 no
    // longer fails every task); make one of its guideline files active either way.
    const file = /new guideline files \([1-9]\d*\): ([^\s,]+)/.exec(
      optOut.replace(/\n +/g, ' '),
    )![1]!;
    const promote = await runAcon(['guidelines', 'promote', file], { cwd });
    expect(promote.code, promote.stderr).toBe(0);
    const res = await runAcon(
      [
        'compare',
        '--bench',
        'qa',
        '--split',
        'dev',
        '--strategies',
        'acon',
        '--max-tasks',
        '1',
        '--json',
      ],
      { cwd },
    );
    expect(res.code, res.stderr).toBe(0);
    const warnings = res.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/learned on apptown, not on qa/);
    const json = JSON.parse(res.stdout) as {
      warnings: string[];
      verdict: string;
      conditions: { pareto: boolean }[];
    };
    expect(json.verdict).toMatch(/^dev: Pareto: acon\[/);
    expect(json.conditions.map((c) => c.pareto)).toEqual([true]);
    expect(json.warnings).toEqual([warnings[0]!.replace(/^warning: /, '')]);
  });
});

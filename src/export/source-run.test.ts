import { describe, expect, it } from 'vitest';
import type { RunRow } from '../domain/index.js';
import { defaultSourceRun, noSourceRunError } from './source-run.js';

/** Newest first, as `listRuns` returns them. */
function runs(...rows: Partial<RunRow>[]): RunRow[] {
  return rows.map(
    (r, i) =>
      ({
        id: `run-${i}`,
        kind: 'optimize',
        bench: 'apptown',
        status: 'finished',
        summary: null,
        ...r,
      }) as RunRow,
  );
}
const storeOf = (rows: RunRow[]) => ({
  listRuns: (kind?: string) => rows.filter((r) => !kind || r.kind === kind),
});
const final = (obs: string, hist: string) => ({ final: { obs, hist } });

describe('defaultSourceRun (issue #24: export picks the right run)', () => {
  const all = runs(
    { id: 'cmp-qa', kind: 'compare', bench: 'qa' },
    { id: 'opt-qa', bench: 'qa', summary: final('obs-0009', 'hist-0009') },
    { id: 'opt-killed', bench: 'apptown', status: 'interrupted' },
    { id: 'opt-new', summary: final('obs-0005', 'hist-0006') },
    { id: 'opt-old', summary: final('obs-0002', 'hist-0003') },
  );

  it('takes the newest optimize run whose final guideline of the role is active, never a compare', () => {
    const active = { obs: 'obs-0005', hist: 'hist-0003' };
    expect(defaultSourceRun(storeOf(all), 'hist', null, active)).toEqual({
      run: all[4],
      note: null,
    });
    expect(defaultSourceRun(storeOf(all), 'obs', null, active)?.run.id).toBe('opt-new');
    // Agent turns ran under both guidelines: no run ended with this pair.
    expect(defaultSourceRun(storeOf(all), 'agent', null, active)?.note).toMatch(/opt-qa/);
  });

  it('falls back to the newest finished optimize run and says which and why', () => {
    const choice = defaultSourceRun(storeOf(all), 'hist', null, { obs: 'x', hist: 'hist-0000' });
    expect(choice?.run.id).toBe('opt-qa');
    expect(choice?.note).toContain(
      'no optimize run ended with the active hist guideline (hist-0000)',
    );
    expect(choice?.note).toContain('--run');
  });

  it('passes over a quick trial (--max-tasks) for a full run, and takes one only when alone', () => {
    const trialFirst = runs(
      { id: 'opt-trial', summary: final('obs-0007', 'hist-0007'), params: { maxTasks: 1 } },
      { id: 'opt-full', summary: final('obs-0005', 'hist-0006'), params: { maxTasks: null } },
    );
    const other = { obs: 'obs-0000', hist: 'hist-0000' };
    expect(defaultSourceRun(storeOf(trialFirst), 'obs', null, other)?.run.id).toBe('opt-full');
    const alone = defaultSourceRun(storeOf(trialFirst.slice(0, 1)), 'obs', null, other);
    expect(alone?.run.id).toBe('opt-trial');
    expect(alone?.note).toContain('a trial with --max-tasks');
  });

  it('never picks a run of another benchmark when one is given', () => {
    const choice = defaultSourceRun(storeOf(all), 'hist', 'apptown', {
      obs: 'obs-0009',
      hist: 'hist-0009',
    });
    expect(choice?.run.id).toBe('opt-new');
    expect(defaultSourceRun(storeOf(all), 'hist', 'appworld', null)).toBeNull();
  });

  it('refuses with the fix when there is no optimize run, naming the run it did not take', () => {
    const err = noSourceRunError(
      { path: 'runs/acon.db', latestRunWithRollouts: () => all[0]! },
      'apptown',
    );
    expect(err.message).toContain('no finished optimize run of apptown in runs/acon.db');
    expect(err.message).toContain('acon optimize --bench apptown');
    expect(err.message).toContain('cmp-qa (compare on qa)');
  });
});

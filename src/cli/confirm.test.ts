import { describe, expect, it } from 'vitest';
import { UsageError } from './usage-error.js';
import { confirmFromFlags, confirmPaidRun, mustConfirm, type ConfirmIo } from './confirm.js';

function io(interactive: boolean, answer = '') {
  const asked: string[] = [];
  const fake: ConfirmIo = {
    interactive,
    ask: async (q) => {
      asked.push(q);
      return answer;
    },
  };
  return { fake, asked };
}
const base = { estimateUsd: 635.95, simulated: false, confirmAbove: 5, yes: false };

describe('confirmPaidRun (issue #24: paid runs ask)', () => {
  it('asks on a terminal above the limit and starts on y', async () => {
    const t = io(true, 'y');
    await confirmPaidRun({ ...base, io: t.fake });
    expect(t.asked).toEqual(['This run may cost ~$635.95 (above $5.00). Start it? [y/N] ']);
  });

  it('does not start on anything but y', async () => {
    const t = io(true, '');
    await expect(confirmPaidRun({ ...base, io: t.fake })).rejects.toThrow(/not started/);
  });

  it('refuses without a terminal and names the fix', async () => {
    const t = io(false);
    const run = confirmPaidRun({ ...base, io: t.fake });
    await expect(run).rejects.toThrow(UsageError);
    await expect(confirmPaidRun({ ...base, io: t.fake })).rejects.toThrow(
      'this run may cost ~$635.95 (above --confirm-above $5.00) and no terminal can confirm it; pass --yes to start it, or --confirm-above with a higher limit',
    );
    expect(t.asked).toEqual([]);
  });

  it.each([
    ['--yes', { yes: true }],
    ['below the limit', { estimateUsd: 4.99 }],
    ['a simulated run', { simulated: true }],
  ])('does not ask for %s', async (_name, patch) => {
    const t = io(false);
    await confirmPaidRun({ ...base, ...patch, io: t.fake });
    expect(t.asked).toEqual([]);
  });
});

describe('confirmFromFlags (optimize, run and compare share it)', () => {
  const paid = { costUsd: 12, simulated: false };

  it('asks above the default $5, not below --confirm-above', async () => {
    const t = io(true, 'yes');
    await confirmFromFlags({}, paid, t.fake);
    expect(t.asked).toHaveLength(1);
    const quiet = io(true, 'n');
    await confirmFromFlags({ confirmAbove: '20' }, paid, quiet.fake);
    expect(quiet.asked).toEqual([]);
  });

  it('starts without asking with --yes, and never asks for a simulated run', async () => {
    const t = io(false);
    await confirmFromFlags({ yes: true }, paid, t.fake);
    await confirmFromFlags({}, { costUsd: 0, simulated: true }, t.fake);
    expect(t.asked).toEqual([]);
  });

  it('does not ask again on --resume: the run was started (and confirmed) already', async () => {
    const t = io(false);
    await confirmFromFlags({ resume: 'run-20261124-000000-abcd' }, paid, t.fake);
    expect(t.asked).toEqual([]);
    await expect(confirmFromFlags({}, paid, t.fake)).rejects.toThrow(/--yes/);
  });

  it('asks (and prints an estimate) only above the limit, without --yes, outside a resume', () => {
    expect(mustConfirm({}, paid)).toBe(true);
    expect(mustConfirm({}, { costUsd: 4, simulated: false })).toBe(false);
    expect(mustConfirm({ confirmAbove: '20' }, paid)).toBe(false);
    expect(mustConfirm({ yes: true }, paid)).toBe(false);
    expect(mustConfirm({ resume: 'run-x' }, paid)).toBe(false);
    expect(mustConfirm({}, { costUsd: 12, simulated: true })).toBe(false);
  });

  it('refuses a bad --confirm-above with exit 2', async () => {
    await expect(confirmFromFlags({ confirmAbove: 'lots' }, paid, io(true).fake)).rejects.toThrow(
      UsageError,
    );
  });
});

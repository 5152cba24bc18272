import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerTasks } from '../src/cli/tasks.js';

async function acon(...args: string[]) {
  let out = '';
  let err = '';
  const program = new Command('acon').exitOverride();
  registerTasks(program, { out: (s) => (out += s), err: (s) => (err += s) });
  await program.parseAsync(['node', 'acon', ...args]);
  return { out, err };
}

describe('acon tasks', () => {
  it('lists the tasks of a split as a table', async () => {
    const { out } = await acon('tasks', 'list', '--bench', 'apptown', '--split', 'dev');
    expect(out).toContain('dev-003-shop-notes-wallet');
    expect(out).not.toContain('train-010-files-wallet-music');
    expect(out).toMatch(/\d+ tasks \(train 0, dev \d+, test 0\)/);
  });

  it('lists tasks as JSON with the template each was made from', async () => {
    const { out } = await acon('tasks', 'list', '--json');
    const tasks = JSON.parse(out) as {
      id: string;
      apps: string[];
      referenceLength: number;
      template: string;
    }[];
    expect(tasks.length).toBeGreaterThanOrEqual(120);
    expect(tasks.find((t) => t.id === 'train-010-files-wallet-music')).toMatchObject({
      apps: ['files', 'wallet', 'music'],
      referenceLength: 39,
      template: 'files-move-pdfs+wallet-approve-largest-request+music-save-most-played-of-playlist',
    });
  });

  it('shows one task', async () => {
    const { out } = await acon('tasks', 'show', 'train-010-files-wallet-music');
    expect(out).toContain('apps: files, wallet, music');
    expect(out).toContain('reference solution: 39 calls');
    expect(out).toContain(
      'template: files-move-pdfs+wallet-approve-largest-request+music-save-most-played-of-playlist',
    );
    expect(out).toContain('pay only the one asking for the most money');
  });

  it('rejects other benchmarks and bad splits with a usage error', async () => {
    await expect(acon('tasks', 'list', '--bench', 'appworld')).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^no AppWorld tasks to run\. .*APPWORLD_ROOT/),
    });
    await expect(acon('tasks', 'list', '--split', 'validation')).rejects.toThrow(/--split/);
  });
});

import { describe, expect, it } from 'vitest';
import type { TaskInfo } from '../bench/types.js';
import { renderTaskTable } from './task-table.js';

const task = (id: string, apps: string[]): TaskInfo => ({
  id,
  split: 'dev',
  instruction: 'do it',
  apps,
  difficulty: 2,
  referenceLength: 41,
});

const TASKS = [
  task('dev-001-wallet-shop-music', ['wallet', 'shop', 'music']),
  task('dev-002-long', [
    'supervisor',
    'wallet',
    'phone',
    'music',
    'mail',
    'files',
    'notes',
    'shop',
  ]),
];

describe('renderTaskTable', () => {
  it('fits the width by shortening the app list, and says so', () => {
    const text = renderTaskTable(TASKS, ['train', 'dev', 'test'], { width: 70 });
    expect(text).toMatchInlineSnapshot(`
      "id                         split  difficulty  apps               calls
      ─────────────────────────  ─────  ──────────  ─────────────────  ─────
      dev-001-wallet-shop-music  dev             2  wallet, shop, mu…     41
      dev-002-long               dev             2  supervisor, wall…     41
      long cells shortened with … (--wide shows everything)
      2 tasks (train 0, dev 2, test 0)
      "
    `);
    expect(Math.max(...text.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(70);
  });

  it('shows every app with wide', () => {
    const text = renderTaskTable(TASKS, ['dev'], { width: 70, wide: true });
    expect(text).toContain('supervisor, wallet, phone, music, mail, files, notes, shop');
    expect(text).not.toContain('…');
  });
});

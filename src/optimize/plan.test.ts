import { describe, expect, it } from 'vitest';
import { sharedTasksWarning } from './plan.js';

const splits = { trainSplit: 'train', selectSplit: 'dev', evalSplit: 'test_normal' };
const tasks = (...ids: string[]) => ids.map((id) => ({ id }));

describe('sharedTasksWarning', () => {
  it('says nothing when every split has its own tasks', () => {
    expect(
      sharedTasksWarning(splits, { train: tasks('a'), select: tasks('b'), eval: tasks('c') }),
    ).toBeNull();
  });

  it('names how many tasks each pair of roles shares (--tasks gives every split the same list)', () => {
    const same = tasks('a', 'b');
    const w = sharedTasksWarning(splits, { train: same, select: same, eval: same });
    expect(w).toContain('2 in train (train) and selection (dev)');
    expect(w).toContain('2 in train (train) and evaluation (test_normal)');
    expect(w).toContain('not held out');
    expect(w).toContain('APPWORLD_ROOT');
  });

  it('catches one task shared by the selection and evaluation splits', () => {
    const w = sharedTasksWarning(splits, {
      train: tasks('a'),
      select: tasks('b', 'x'),
      eval: tasks('x', 'c'),
    });
    expect(w).toContain('1 in selection (dev) and evaluation (test_normal)');
    expect(w).not.toContain('train (train) and');
  });
});

import { describe, expect, it } from 'vitest';
import type { TaskInfo } from '../bench/index.js';
import { droppedPrefix, inOrderView, type DropRule, type Live } from './race-view.js';

const tasks = ['t0', 't1', 't2', 't3'].map((id) => ({ id }) as TaskInfo);
const live = (outcomes: Record<string, boolean>): Live => ({
  successes: Object.values(outcomes).filter(Boolean).length,
  done: Object.keys(outcomes).length,
  peakSum: 0,
  dropped: false,
  byTask: new Map(Object.entries(outcomes).map(([id, success]) => [id, { success, tokens: 10 }])),
});
/** Dropped once two of its finished tasks failed. */
const twoFailures: DropRule = (self) => self.done - self.successes < 2;

describe('racing in the seeded order', () => {
  it('reads only the finished prefix: a task finished out of order does not count yet', () => {
    const t = live({ t0: false, t1: true, t3: false });
    expect(inOrderView(t, tasks).done).toBe(2);
    expect(twoFailures(inOrderView(t, tasks), [], 4)).toBe(true);
    // All finished tasks together would drop it: that is what depended on the scheduling.
    expect(twoFailures(t, [], 4)).toBe(false);
    expect(droppedPrefix(t, tasks, [], twoFailures)).toBeNull();
  });

  it('drops at the same prefix whichever later tasks happened to finish', () => {
    const early = droppedPrefix(live({ t0: false, t1: true, t2: false }), tasks, [], twoFailures);
    const late = droppedPrefix(
      live({ t0: false, t1: true, t2: false, t3: true }),
      tasks,
      [],
      twoFailures,
    );
    expect([...early!]).toEqual(['t0', 't1', 't2']);
    expect(late).toEqual(early);
  });
});

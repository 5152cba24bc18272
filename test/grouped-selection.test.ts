import { describe, expect, it } from 'vitest';
import { groupedSelection, unseenPatterns } from '../src/optimize/grouped-split.js';
import { makeEnv } from './helpers/env.js';

/**
 * Issue 56: on the shipped apptown tasks, dev shares every task pattern with train, while test
 * holds patterns out; the grouped selection split does as test does.
 */
describe('grouped selection on the shipped apptown tasks', () => {
  it('selects on patterns training never used, where dev has none', async () => {
    const env = makeEnv({ provider: 'sim' });
    const all = await env.bench.listTasks();
    const of = (split: string) => all.filter((t) => t.split === split);
    const [train, dev, test] = [of('train'), of('dev'), of('test')];
    expect(unseenPatterns(dev, train).unseen).toBe(0);
    expect(unseenPatterns(test, train).unseen).toBe(test.length);
    const g = groupedSelection([...train, ...dev], 16, env.config.seed);
    expect(g.select.length).toBeGreaterThan(8);
    expect(g.select.length).toBeLessThanOrEqual(16);
    expect(unseenPatterns(g.select, g.train)).toEqual({
      unseen: g.select.length,
      total: g.select.length,
    });
  });
});

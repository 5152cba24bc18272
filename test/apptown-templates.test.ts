import { describe, expect, it } from 'vitest';
import { WorldCache } from '../src/bench/apptown/worlds.js';
import { buildAlone, TEMPLATES, worldSeeds } from '../scripts/bench/apptown-tasks/index.js';

/**
 * `gen-apptown-tasks.ts --seed N` must work for any N (issue #22: the figures are checked on sets
 * nobody tuned on). A template that cannot be done in a world says so with NoCandidate, and the
 * generator tries another; any other error stops it. Seed 41's first world has a category whose
 * cheapest well-rated product is sold out, which stopped the generator before the fix.
 */
describe('apptown task templates', () => {
  it.each([0, 41])('build or report no candidate on the first world of set %i', (set) => {
    const seed = worldSeeds(set)[0]!;
    const worlds = new WorldCache();
    const outcomes = TEMPLATES.map((t) => {
      try {
        return buildAlone(t, seed, worlds) ? 'built' : 'none';
      } catch (err) {
        return `${t.slug}: ${(err as Error).message}`;
      }
    });
    expect(outcomes.filter((o) => o !== 'built' && o !== 'none')).toEqual([]);
    // The world has data for most templates: the check is not vacuous.
    expect(outcomes.filter((o) => o === 'built').length).toBeGreaterThan(TEMPLATES.length / 2);
  });
});

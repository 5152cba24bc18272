import { LRUCache } from 'lru-cache';
import { ArgSchemas } from './apps/api-docs.js';
import { generateTables } from './seed-data.js';
import type { Tables } from './records.js';
import { initialIds, World } from './world.js';

/** A fresh world of a seed, its tables generated for it alone (see WorldCache). */
export function createWorld(seed: number): World {
  return new World(seed, deepFreeze(generateTables(seed)));
}

/**
 * Pristine tables per seed, so the many episodes of one task (rollouts, candidates, reference
 * replays) generate its world once; every World copies the tables it touches. Bounded: a
 * world is about 0.8 MB of objects. Room for every shipped task (102): with fewer, a run over
 * a whole split at high concurrency regenerated worlds all the time, and generating one takes
 * tens of milliseconds (issue #16, bench:throughput). Owned by a benchmark.
 */
export class WorldCache {
  private readonly pristine = new LRUCache<number, { tables: Tables; ids: ReadonlySet<number> }>({
    max: 128,
  });
  private readonly argSchemas = new ArgSchemas();

  create(seed: number): World {
    let hit = this.pristine.get(seed);
    if (!hit) {
      const tables = deepFreeze(generateTables(seed));
      hit = { tables, ids: initialIds(tables) };
      this.pristine.set(seed, hit);
    }
    return new World(seed, hit.tables, { ids: hit.ids, argSchemas: this.argSchemas });
  }
}

/** Frozen, so code that writes to a world's initial state instead of a copy fails loudly. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

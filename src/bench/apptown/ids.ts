import type { Random } from '../../seeded-random.js';

/**
 * Distinctive ids. Ids are 5-6 digit integers drawn at random and
 * unique across the whole world, not 1, 2, 3: the `sim` agent checks whether an id appears
 * verbatim in its context (ARCHITECTURE §6), which only means something when ids cannot be
 * guessed and do not collide with counts, years or amounts.
 */

const MIN_ID = 10_000;
const MAX_ID = 999_999;

export class IdAllocator {
  /**
   * @param taken ids in use from the start, never changed here (a world's seeded rows: shared
   * by every episode of the seed instead of copied into each)
   */
  constructor(
    private readonly random: Random,
    private readonly taken: ReadonlySet<number> = new Set(),
    private readonly used: Set<number> = new Set(),
  ) {}

  next(): number {
    for (;;) {
      const id = MIN_ID + Math.floor(this.random() * (MAX_ID - MIN_ID + 1));
      if (!this.used.has(id) && !this.taken.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }

  reserve(id: number): void {
    this.used.add(id);
  }
}

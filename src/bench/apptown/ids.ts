/**
 * Distinctive ids and a tiny seeded PRNG. Ids are 5-6 digit integers drawn at random and
 * unique across the whole world, not 1, 2, 3: the `sim` agent checks whether an id appears
 * verbatim in its context (ARCHITECTURE §6), which only means something when ids cannot be
 * guessed and do not collide with counts, years or amounts.
 */

/** mulberry32: small, fast, good enough for ids; never touches Math.random. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MIN_ID = 10_000;
const MAX_ID = 999_999;

export class IdAllocator {
  /**
   * @param taken ids in use from the start, never changed here (a world's seeded rows: shared
   * by every episode of the seed instead of copied into each)
   */
  constructor(
    private readonly random: () => number,
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

import { mulberry32 } from '../../../src/seeded-random.js';

/** Seeded choices for templates, so regenerating the tasks gives the same files. */
export class Picker {
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = mulberry32(seed);
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new NoCandidate();
    return items[this.int(0, items.length - 1)] as T;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  /** A dollar amount people actually type: whole dollars or fifty cents. */
  dollars(min: number, max: number): number {
    return this.int(min, max) + (this.random() < 0.3 ? 0.5 : 0);
  }
}

/** Thrown when a world has nothing that fits a template; the generator tries another seed. */
export class NoCandidate extends Error {
  override name = 'NoCandidate';
}

export function need<T>(value: T | undefined | null | false): T {
  if (value === undefined || value === null || value === false) throw new NoCandidate();
  return value;
}

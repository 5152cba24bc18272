import { createHash } from 'node:crypto';

/** A seeded PRNG: runs are reproducible, and Math.random is never touched. */
export type Random = () => number;

/** A stream seeded by a hash of its parts (`seededRandom('qa-corpus', seed)`): one per purpose. */
export function seededRandom(...seed: (string | number)[]): Random {
  return mulberry32(createHash('sha256').update(seed.join('\u0000')).digest().readUInt32LE(0));
}

/** mulberry32 (Tommy Ettinger's 32-bit generator): small and fast; the one PRNG of acon. */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded Fisher–Yates sample of at most `n` items, in their original order. */
export function sampleStable<T>(items: readonly T[], n: number, random: Random): T[] {
  if (items.length <= n) return [...items];
  const idx = items.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => items[i]!);
}

import { createHash } from 'node:crypto';
import type { Trace } from '../../domain/index.js';

/** Fractions of the conversations each split gets; held-out takes what is left. */
export type TraceFractions = { train: number; selection: number };

export type TraceSplits = { train: Trace[]; selection: Trace[]; heldout: Trace[] };

/** A conversation's place in [0, 1): a seeded hash of its id, so a file always splits alike. */
export function traceRank(id: string, seed: number): number {
  const h = createHash('sha256').update(`${seed}\u0000${id}`).digest();
  return h.readUInt32BE(0) / 2 ** 32;
}

/**
 * Train / selection / held-out by the rank of each id. The split of a conversation depends only
 * on its id and the seed, never on the other lines: adding conversations to a file moves none.
 */
export function splitTraces(
  traces: readonly Trace[],
  fractions: TraceFractions,
  seed: number,
): TraceSplits {
  const out: TraceSplits = { train: [], selection: [], heldout: [] };
  for (const t of traces) {
    const r = traceRank(t.id, seed);
    if (r < fractions.train) out.train.push(t);
    else if (r < fractions.train + fractions.selection) out.selection.push(t);
    else out.heldout.push(t);
  }
  return out;
}

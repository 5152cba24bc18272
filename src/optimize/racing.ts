import {
  decideCompression,
  decideUtility,
  type DecisionParams,
  type PairedOutcome,
} from './decision-rule.js';
import type { Phase } from './params.js';

/**
 * Racing (issue 56): candidates run the selection tasks one by one in a seeded order, the parent
 * having run them all first, and a candidate stops as soon as no outcome of its remaining tasks
 * could make the paired rule accept it. This is the elimination step of a racing algorithm
 * (Maron & Moore's Hoeffding races; Birattari et al.'s F-race for configurations) with the
 * acceptance test itself as the bound: an exact check over every completion, not an
 * approximation, so racing never drops a candidate `--no-racing` would have accepted.
 */
export type RaceState = {
  /** Paired outcomes of the tasks the candidate has finished. */
  done: readonly PairedOutcome[];
  /** The parent's outcome and tokens on each task the candidate has not run yet. */
  remaining: readonly { parentSuccess: boolean; parentTokens: number }[];
};

/**
 * Whether some outcome of the remaining tasks lets the rule accept the candidate. A remaining
 * task the parent failed can become a win or stay a tie, one it solved a tie or a loss; the
 * candidate's tokens on them are taken at their most favourable (none), which only keeps a
 * candidate longer. Every (extra wins, extra losses) is tried: the rule's bounds are not
 * monotone in both at once (decision-rule.ts, dropUpperBound).
 */
export function canStillBeAccepted(phase: Phase, s: RaceState, params: DecisionParams): boolean {
  const decide = phase === 'ut' ? decideUtility : decideCompression;
  const failedLeft = s.remaining.filter((r) => !r.parentSuccess);
  const solvedLeft = s.remaining.filter((r) => r.parentSuccess);
  for (let a = 0; a <= failedLeft.length; a++) {
    for (let b = 0; b <= solvedLeft.length; b++) {
      const future: PairedOutcome[] = [
        ...failedLeft.map((r, i) => ({
          taskId: `left-f${i}`,
          parentSuccess: false,
          candidateSuccess: i < a,
          parentTokens: r.parentTokens,
          candidateTokens: 0,
        })),
        ...solvedLeft.map((r, i) => ({
          taskId: `left-s${i}`,
          parentSuccess: true,
          candidateSuccess: i >= b,
          parentTokens: r.parentTokens,
          candidateTokens: 0,
        })),
      ];
      if (decide([...s.done, ...future], params).accepted) return true;
    }
  }
  return false;
}

import {
  decideCompression,
  decideUtility,
  type DecisionParams,
  type PairedOutcome,
} from './decision-rule.js';
import type { Phase } from './params.js';

/**
 * Racing (issue 56): candidates run the selection tasks in rounds in a seeded order (race.ts),
 * the parent having run them all first, and a candidate stops as soon as no outcome of its
 * remaining tasks could make the paired rule accept it. This is the elimination step of a
 * racing algorithm (Maron & Moore's Hoeffding races; Birattari et al.'s F-race for
 * configurations) with the acceptance test itself as the bound: exact over every completion of
 * the outcomes, so racing never drops a candidate on accuracy that `--no-racing` would accept;
 * the tokens of unrun tasks are bounded below by tokenRatioFloor, the one estimate it makes.
 */
export type RaceState = {
  /** Paired outcomes of the tasks the candidate has finished. */
  done: readonly PairedOutcome[];
  /** The parent's outcome and tokens on each task the candidate has not run yet. */
  remaining: readonly { parentSuccess: boolean; parentTokens: number }[];
};

/**
 * The fewest peak tokens the candidate can be expected to spend on a task it has not run, as a
 * ratio to the parent's peak on that task: the smallest ratio over the run tasks where its peak
 * differs from the parent's, at most 1 (0 before it has changed one). A task where the peak is
 * the parent's to the token is one its guideline did not act on (the compressor never fired,
 * or kept the same): an unrun task is either such a task (ratio 1) or one it acts on, and there
 * a guideline changes what the compressor keeps on every task alike, so its effect is a ratio
 * to the parent's peak. The seeded order makes the run tasks a uniform random sample of the
 * selection tasks, so an unrun acted-on task's ratio falls below the sample's minimum with
 * probability at most 1/(k + 1) after k of them (exchangeability), and the mean of the unrun
 * ones (what the rule reads) far less often. Without a floor a tie with fewer tokens stays
 * reachable to the last task, on tokens no rollout could have (docs/method.md, Racing).
 */
export function tokenRatioFloor(done: readonly PairedOutcome[]): number {
  const ratios = done
    .filter((o) => o.parentTokens > 0 && o.candidateTokens !== o.parentTokens)
    .map((o) => o.candidateTokens / o.parentTokens);
  return ratios.length === 0 ? 0 : Math.min(1, ...ratios);
}

/**
 * Whether some outcome of the remaining tasks lets the rule accept the candidate. A remaining
 * task the parent failed can become a win or stay a tie, one it solved a tie or a loss; the
 * candidate's tokens on them are taken at their floor (tokenRatioFloor). Every (extra wins,
 * extra losses) is tried: the rule's bounds are not monotone in both at once (decision-rule.ts,
 * dropUpperBound).
 */
export function canStillBeAccepted(phase: Phase, s: RaceState, params: DecisionParams): boolean {
  const decide = phase === 'ut' ? decideUtility : decideCompression;
  const floor = tokenRatioFloor(s.done);
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
          candidateTokens: floor * r.parentTokens,
        })),
        ...solvedLeft.map((r, i) => ({
          taskId: `left-s${i}`,
          parentSuccess: true,
          candidateSuccess: i >= b,
          parentTokens: r.parentTokens,
          candidateTokens: floor * r.parentTokens,
        })),
      ];
      if (decide([...s.done, ...future], params).accepted) return true;
    }
  }
  return false;
}

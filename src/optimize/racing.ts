import {
  decideCompression,
  decideUtility,
  type Decision,
  type DecisionParams,
  type PairedOutcome,
} from './decision-rule.js';
import type { Phase } from './params.js';

/**
 * Racing (issue 56): candidates run the selection tasks rung by rung in a seeded order (race.ts),
 * the parent having run them all first, and two things drop a candidate at a rung's end:
 * - elimination: no outcome of its remaining tasks could make the paired rule accept it. This is
 *   the elimination step of racing (Maron & Moore 1994, Hoeffding races; Birattari et al. 2002,
 *   the F-race) with the acceptance test itself as the bound, exact over every completion of the
 *   outcomes; the tokens of unrun tasks are bounded below by tokenRatioFloor, its one estimate.
 * - successive halving (Karnin, Koren & Somekh 2013, Sequential Halving; Jamieson & Talwalkar
 *   2016 for configurations; Li et al. 2017, Hyperband): of the candidates that ran the rung,
 *   only the better ⌈m/2⌉, ranked as the stage would rank them on the tasks so far
 *   (rankContenders), go on to a rung of twice the tasks (halvingRungs). Elimination alone could
 *   not save much where candidates are alike: on the README optimize no two CO candidates
 *   solved different tasks, and the chosen one's peak differed from two others' on 2 of 16, so
 *   neither "cannot be accepted" nor "worse than the best with confidence" (a paired sign test
 *   against the leader; replayed over a `--no-racing` run, 201 of its 240 rollouts) is shown for
 *   most of them before the last task (docs/method.md, Racing). Halving spends a budget fixed
 *   by the number of candidates instead (32 of 80 rollouts for five on 16 tasks) and, as a
 *   best-arm identification with a fixed budget, may drop a candidate that `--no-racing` would
 *   have chosen. What is accepted is still only what the rule accepts against the parent on every
 *   selection task: a survivor of the last rung has run them all.
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

/** A candidate still in the race: its paired outcomes against the parent on the judged tasks. */
export type Contender = { label: string; done: readonly PairedOutcome[] };

/**
 * Successive halving's rungs: how many tasks of the seeded order the survivors have run at the end
 * of each rung, the last being all `n`. With `k` candidates there are ⌈log₂ k⌉ halvings, each
 * doubling every survivor's tasks (Hyperband's bracket with η = 2 and the whole selection split
 * as its largest resource), so the first rung is n / 2^⌈log₂ k⌉ tasks (at least 1) and every rung
 * costs about k·n / 2^⌈log₂ k⌉ rollouts. Five candidates on 16 tasks: rungs at 2, 4, 8 and 16
 * tasks, with 5, 3, 2 and 1 candidates: 10 + 6 + 8 + 8 = 32 rollouts of `--no-racing`'s 80.
 */
export function halvingRungs(n: number, k: number): number[] {
  const halvings = k <= 1 ? 0 : Math.ceil(Math.log2(k));
  const rungs: number[] = [];
  for (let h = halvings; h >= 0; h--) {
    const at = Math.min(n, Math.max(1, Math.ceil(n / 2 ** h)));
    if (rungs.at(-1) !== at) rungs.push(at);
  }
  return rungs;
}

/**
 * The contenders best first, as the stage would rank them if it ended on the tasks run so far:
 * those the paired rule accepts before those it does not, each group in the choice order of
 * paired-selection.ts (UT: net gain in solved tasks, then the smaller p-value, then fewer
 * tokens; CO: fewer tokens, then the net gain), then by label. Halving keeps the first half.
 */
export function rankContenders(
  phase: Phase,
  contenders: readonly Contender[],
  params: DecisionParams,
): string[] {
  const decide = phase === 'ut' ? decideUtility : decideCompression;
  const net = (d: Decision) => d.wins - d.losses;
  return contenders
    .map((c) => ({ label: c.label, d: decide(c.done, params) }))
    .sort(
      (a, b) =>
        Number(b.d.accepted) - Number(a.d.accepted) ||
        (phase === 'ut'
          ? net(b.d) - net(a.d) ||
            a.d.pValue - b.d.pValue ||
            a.d.candidateTokens - b.d.candidateTokens
          : a.d.candidateTokens - b.d.candidateTokens || net(b.d) - net(a.d)) ||
        a.label.localeCompare(b.label),
    )
    .map((x) => x.label);
}

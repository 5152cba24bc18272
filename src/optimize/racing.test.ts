import { describe, expect, it } from 'vitest';
import { DEFAULT_DECISION, type PairedOutcome } from './decision-rule.js';
import { canStillBeAccepted, halvingRungs, rankContenders, tokenRatioFloor } from './racing.js';

const outcome = (parentSuccess: boolean, candidateSuccess: boolean, tokens = [1000, 1000]) => ({
  taskId: 'x',
  parentSuccess,
  candidateSuccess,
  parentTokens: tokens[0]!,
  candidateTokens: tokens[1]!,
});
const times = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);
const left = (parentSuccess: boolean, n: number) => times(n, { parentSuccess, parentTokens: 1000 });

/** P(X ≥ w) for X ~ Binomial(w + l, 1/2): the sum of C(d, i) for i ≥ w, Pascal's rule. */
function tail(w: number, l: number): number {
  const d = w + l;
  let row = [1];
  for (let i = 0; i < d; i++) row = [1, ...row.slice(1).map((c, j) => c + row[j]!), 1];
  return row.slice(w).reduce((a, b) => a + b, 0) / 2 ** d;
}

describe('canStillBeAccepted, utility phase', () => {
  it('drops a candidate that could not reach significance even winning every remaining task', () => {
    // 3 tasks lost, the parent failed only 2 of the 13 left: at best 2 wins against 3 losses,
    // and no tie is reachable once the losses outnumber every possible win.
    const done: PairedOutcome[] = [...times(3, outcome(true, false))];
    const s = { done, remaining: [...left(false, 2), ...left(true, 11)] };
    expect(canStillBeAccepted('ut', s, DEFAULT_DECISION)).toBe(false);
  });
  it('keeps a candidate that still can: winning the 4 parent failures left gives p = 1/16', () => {
    expect(tail(4, 0)).toBe(1 / 16);
    const s = {
      done: times(4, outcome(true, true)),
      remaining: [...left(false, 4), ...left(true, 8)],
    };
    expect(canStillBeAccepted('ut', s, DEFAULT_DECISION)).toBe(true);
  });
  it('drops at 3 parent failures left and 1 loss: 3 wins to 1 loses at p = 5/16 > 0.1, no tie with fewer tokens', () => {
    expect(tail(3, 1)).toBe(5 / 16);
    // A tie (1 win, 1 loss) stays reachable; the remaining tokens are floored at the smallest
    // ratio to the parent seen so far (here 500/1000), so the tie could cut 10%: kept. With the
    // finished task far above the parent's tokens the floor is 20× the parent's: dropped.
    const cheap = {
      done: [outcome(true, false, [1000, 500])],
      remaining: [...left(false, 3), ...left(true, 12)],
    };
    expect(canStillBeAccepted('ut', cheap, DEFAULT_DECISION)).toBe(true);
    const costly = {
      done: [outcome(true, false, [1000, 20_000])],
      remaining: [...left(false, 3), ...left(true, 12)],
    };
    // Mean candidate tokens ≥ 20000/16 = 1250 > 0.9 × 1000.
    expect(canStillBeAccepted('ut', costly, DEFAULT_DECISION)).toBe(false);
  });
  it('drops a tie above the parent tokens once no win is reachable: the unrun tasks are floored', () => {
    // 4 ties, each 5% above the parent's tokens; of the 12 left the parent failed 3: 3 wins
    // give p = 1/8 > 0.1, so only a tie with 10% fewer tokens could still be accepted.
    expect(tail(3, 0)).toBe(1 / 8);
    const s = {
      done: times(4, outcome(true, true, [1000, 1050])),
      remaining: [...left(false, 3), ...left(true, 9)],
    };
    // The floor is capped at 1: a task the guideline does not act on costs the parent's tokens.
    expect(tokenRatioFloor(s.done)).toBe(1);
    // At the floor the mean is (4 × 1050 + 12 × 1000) / 16 = 1012.5, no cut; unrun tasks at 0
    // tokens (the old assumption) would have made 4200/16 = 262.5 and kept it to the last task.
    expect(canStillBeAccepted('ut', s, DEFAULT_DECISION)).toBe(false);
    const cheaper = { ...s, done: [outcome(true, true, [1000, 800]), ...s.done.slice(1)] };
    expect(tokenRatioFloor(cheaper.done)).toBe(0.8);
    // (800 + 3 × 1050 + 12 × 800) / 16 = 859.4 ≤ 900: a tie could still cut 10%.
    expect(canStillBeAccepted('ut', cheaper, DEFAULT_DECISION)).toBe(true);
  });
  it('floors nothing before the guideline has acted on a task, nor where the parent spent none', () => {
    expect(tokenRatioFloor([])).toBe(0);
    // At the parent's tokens to the token: no evidence of what it does where it acts.
    expect(tokenRatioFloor(times(3, outcome(true, true)))).toBe(0);
    expect(
      tokenRatioFloor([
        outcome(true, true, [0, 50]),
        outcome(true, true),
        outcome(true, true, [100, 90]),
      ]),
    ).toBe(0.9);
  });
  it('never drops a candidate that finishes accepted (every completion of an accepted run)', () => {
    const done = times(5, outcome(false, true));
    expect(canStillBeAccepted('ut', { done, remaining: [] }, DEFAULT_DECISION)).toBe(true);
    expect(
      canStillBeAccepted(
        'ut',
        { done: done.slice(0, 1), remaining: left(false, 4) },
        DEFAULT_DECISION,
      ),
    ).toBe(true);
  });
});

describe('canStillBeAccepted, compression phase', () => {
  it('drops a candidate whose drop bound stays beyond the margin with every remaining win', () => {
    // 1 loss, 1 parent failure left: the best completion is 1 won / 1 lost of 16, π solves
    // P(X ≤ 1 | 2, π) = 1 − π² = 0.1, drop bound 2(2π − 1)/16 = 0.112 > 0.025.
    const pi = Math.sqrt(0.9);
    expect((2 * (2 * pi - 1)) / 16).toBeGreaterThan(0.025);
    const s = {
      done: [outcome(true, false, [1000, 500])],
      remaining: [...left(false, 1), ...left(true, 14)],
    };
    expect(canStillBeAccepted('co', s, DEFAULT_DECISION)).toBe(false);
  });
  it('keeps one that ties so far with fewer tokens', () => {
    const s = { done: times(4, outcome(true, true, [1000, 500])), remaining: left(true, 12) };
    expect(canStillBeAccepted('co', s, DEFAULT_DECISION)).toBe(true);
  });
  it('drops one whose tokens so far already exceed the parent mean over all tasks', () => {
    const s = { done: [outcome(true, true, [1000, 17_000])], remaining: left(true, 15) };
    expect(canStillBeAccepted('co', s, DEFAULT_DECISION)).toBe(false);
  });
});

/** n paired outcomes: `wins` the candidate alone solved, `losses` the parent alone, the rest both. */
function record(
  n: number,
  wins: number,
  losses: number,
  tokens: [number, number],
): PairedOutcome[] {
  return Array.from({ length: n }, (_, i) => ({
    taskId: `t${i}`,
    parentSuccess: i >= wins,
    candidateSuccess: i < wins || i >= wins + losses,
    parentTokens: tokens[0],
    candidateTokens: tokens[1],
  }));
}

describe('halvingRungs (successive halving, η = 2)', () => {
  it('doubles the tasks at each of the ⌈log₂ k⌉ halvings, ending on every task', () => {
    expect(halvingRungs(16, 5)).toEqual([2, 4, 8, 16]);
    expect(halvingRungs(16, 4)).toEqual([4, 8, 16]);
    expect(halvingRungs(16, 3)).toEqual([4, 8, 16]);
    expect(halvingRungs(16, 2)).toEqual([8, 16]);
    expect(halvingRungs(16, 1)).toEqual([16]);
    // 10 tasks, 3 candidates: ⌈10/4⌉, ⌈10/2⌉, 10.
    expect(halvingRungs(10, 3)).toEqual([3, 5, 10]);
    // Fewer tasks than the halvings want: a rung is at least one task, and none repeats.
    expect(halvingRungs(2, 5)).toEqual([1, 2]);
  });
  it('costs five candidates on 16 tasks 32 rollouts of the 80 without racing', () => {
    // Survivors per rung: 5, ⌈5/2⌉ = 3, ⌈3/2⌉ = 2, 1; each runs the rung's new tasks.
    const rungs = halvingRungs(16, 5);
    let live = 5;
    let ran = 0;
    rungs.forEach((at, i) => {
      ran += live * (at - (rungs[i - 1] ?? 0));
      live = Math.ceil(live / 2);
    });
    expect(ran).toBe(5 * 2 + 3 * 2 + 2 * 4 + 1 * 8);
    expect(ran).toBe(32);
  });
});

describe('rankContenders', () => {
  it('UT: the accepted first, then the net gain, then the smaller sign-test p-value', () => {
    // a: 3 won / 0 lost, p = 1/8 (rejected); b: 4 / 0, p = 1/16 (accepted); c: 4 / 1, net 3 as
    // a, p = P(X ≥ 4 | 5) = 6/32 (rejected, ranked after a); d: 1 / 0, p = 1/2.
    expect(tail(3, 0)).toBe(1 / 8);
    expect(tail(4, 1)).toBe(6 / 32);
    const ranked = rankContenders(
      'ut',
      [
        { label: 'd', done: record(16, 1, 0, [1000, 1000]) },
        { label: 'c', done: record(16, 4, 1, [1000, 900]) },
        { label: 'a', done: record(16, 3, 0, [1000, 1000]) },
        { label: 'b', done: record(16, 4, 0, [1000, 1100]) },
      ],
      DEFAULT_DECISION,
    );
    expect(ranked).toEqual(['b', 'a', 'c', 'd']);
  });
  it('CO: the non-inferior with fewer tokens first, by mean peak; ties by label', () => {
    // b has the fewest tokens but lost a task: its drop bound, 1 lost of 1 discordant, is 1/16
    // of the tasks (π's upper bound is 1), beyond the 2.5-point margin, so it ranks last.
    const ranked = rankContenders(
      'co',
      [
        { label: 'b', done: record(16, 0, 1, [1000, 800]) },
        { label: 'c', done: record(16, 0, 0, [1000, 950]) },
        { label: 'e', done: record(16, 0, 0, [1000, 900]) },
        { label: 'a', done: record(16, 0, 0, [1000, 900]) },
      ],
      DEFAULT_DECISION,
    );
    expect(1 / 16).toBeGreaterThan(DEFAULT_DECISION.margin);
    expect(ranked).toEqual(['a', 'e', 'c', 'b']);
  });
});

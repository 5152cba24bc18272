import type { PairedOutcome } from './decision-rule.js';

/* Test fixture (not built into dist) for the tests of the paired decision rules. */

/** n paired tasks: `wins` the candidate alone solved, `losses` the parent alone, the rest both. */
export function pairs(
  n: number,
  wins: number,
  losses: number,
  tokens = [1000, 1000],
): PairedOutcome[] {
  return Array.from({ length: n }, (_, i) => ({
    taskId: `t${i}`,
    parentSuccess: i >= wins,
    candidateSuccess: i < wins || i >= wins + losses,
    parentTokens: tokens[0]!,
    candidateTokens: tokens[1]!,
  }));
}

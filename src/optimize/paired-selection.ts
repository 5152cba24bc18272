import {
  decideCompression,
  decideUtility,
  type Decision,
  type DecisionParams,
  type PairedOutcome,
} from './decision-rule.js';
import type { Phase } from './params.js';

/**
 * The choice among a stage's candidates by the paired rule (decision-rule.ts, issue 56): each
 * candidate is judged against its parent on the same tasks; among those the rule accepts, UT
 * takes the largest net gain in solved tasks (then the smaller p-value, then fewer tokens), CO
 * the fewest tokens (then the smaller net loss). Pure: it sees per-task outcomes only.
 */
export type CandidatePairs = { id: string; pairs: PairedOutcome[] };

export type PairedSelection = {
  winner: string | null;
  decisions: Record<string, Decision>;
  reasons: Record<string, string>;
};

export function choosePaired(
  phase: Phase,
  candidates: readonly CandidatePairs[],
  params: DecisionParams,
): PairedSelection {
  const decide = phase === 'ut' ? decideUtility : decideCompression;
  const decisions: Record<string, Decision> = {};
  for (const c of candidates) decisions[c.id] = decide(c.pairs, params);
  const net = (d: Decision) => d.wins - d.losses;
  const accepted = candidates
    .map((c) => ({ id: c.id, d: decisions[c.id]! }))
    .filter((c) => c.d.accepted)
    .sort((a, b) =>
      phase === 'ut'
        ? net(b.d) - net(a.d) ||
          a.d.pValue - b.d.pValue ||
          a.d.candidateTokens - b.d.candidateTokens ||
          a.id.localeCompare(b.id)
        : a.d.candidateTokens - b.d.candidateTokens ||
          net(b.d) - net(a.d) ||
          a.id.localeCompare(b.id),
    );
  const winner = accepted[0]?.id ?? null;
  const reasons: Record<string, string> = {};
  for (const c of candidates) {
    const d = decisions[c.id]!;
    reasons[c.id] =
      c.id === winner
        ? `selected: ${d.reason}`
        : d.accepted
          ? `passed the rule but ${winner} did better (${decisions[winner!]!.reason.replace(/^accepted: /, '')}): ${d.reason.replace(/^accepted: /, '')}`
          : // The report line says "rejected" already.
            d.reason.replace(/^rejected: /, '');
  }
  return { winner, decisions, reasons };
}

/** The paired outcomes of a candidate against its parent on the tasks both have a rollout of. */
export function pairOutcomes(
  parent: ReadonlyMap<string, { success: boolean; tokens: number }>,
  candidate: ReadonlyMap<string, { success: boolean; tokens: number }>,
): PairedOutcome[] {
  const out: PairedOutcome[] = [];
  for (const [taskId, p] of parent) {
    const c = candidate.get(taskId);
    if (!c) continue;
    out.push({
      taskId,
      parentSuccess: p.success,
      candidateSuccess: c.success,
      parentTokens: p.tokens,
      candidateTokens: c.tokens,
    });
  }
  return out;
}

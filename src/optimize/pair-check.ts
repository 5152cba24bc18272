import { decideCompression, decideUtility, type DecisionParams } from './decision-rule.js';
import { pairOutcomes } from './paired-selection.js';
import { z } from 'zod';

/**
 * The pair checked together (issue 56): each compressor is tuned alone, but they are deployed
 * together, so after the phases the learned pair, each learned guideline with the other's v0,
 * and the v0 pair run on the selection split under the deployed condition, and the choice is
 * made against the v0 pair by the paired rule. An option is eligible when it solves at least as
 * many of the paired tasks as the v0 pair (so the chosen pair's selection accuracy is never below
 * v0's) and the rule accepts it against v0: UT's (significantly more solved) or CO's
 * (non-inferior within the margin with fewer peak tokens). The eligible option with the largest
 * net gain wins, ties to fewer tokens, then to the order given (learned pair first); none
 * eligible: v0 stays. Pure.
 */
export type PairOption = {
  name: string;
  outcomes: ReadonlyMap<string, { success: boolean; tokens: number }>;
};

export const PairCheckLineSchema = z.object({
  name: z.string(),
  label: z.string(),
  accuracy: z.number(),
  peakTokens: z.number(),
  eligible: z.boolean(),
  reason: z.string(),
});

export const PairCheckSchema = z.object({
  split: z.string(),
  tasks: z.number().int(),
  options: z.array(PairCheckLineSchema),
  /** The option made the run's choice (`v0` when none beat it). */
  chosen: z.string(),
  verdict: z.string(),
});
export type PairCheck = z.infer<typeof PairCheckSchema>;

export type PairJudgement = {
  chosen: string;
  verdict: string;
  lines: { name: string; eligible: boolean; reason: string }[];
};

export const V0_PAIR = 'v0';

export function choosePair(
  v0: ReadonlyMap<string, { success: boolean; tokens: number }>,
  options: readonly PairOption[],
  params: DecisionParams,
): PairJudgement {
  const judged = options.map((o, order) => {
    const pairs = pairOutcomes(v0, o.outcomes);
    const ut = decideUtility(pairs, params);
    const co = decideCompression(pairs, params);
    const notBelow = ut.wins >= ut.losses;
    const eligible = notBelow && (ut.accepted || co.accepted);
    const reason = !notBelow
      ? `below the v0 pair on selection (${ut.wins} won / ${ut.losses} lost of ${ut.n})`
      : ut.accepted && ut.wins > ut.losses
        ? `better than the v0 pair: ${ut.reason.replace(/^accepted: /, '')}`
        : co.accepted
          ? `as good as the v0 pair with fewer tokens: ${co.reason.replace(/^accepted: /, '')}`
          : ut.accepted
            ? `as many solved as the v0 pair with fewer tokens: ${ut.reason.replace(/^accepted: /, '')}`
            : `not shown better than the v0 pair: ${co.reason.replace(/^rejected: /, '')}`;
    return {
      name: o.name,
      order,
      eligible,
      net: ut.wins - ut.losses,
      tokens: ut.candidateTokens,
      reason,
    };
  });
  const ranked = judged
    .filter((j) => j.eligible)
    .sort((a, b) => b.net - a.net || a.tokens - b.tokens || a.order - b.order);
  const chosen = ranked[0]?.name ?? V0_PAIR;
  const verdict =
    chosen === V0_PAIR
      ? 'no guideline beat v0 on selection; v0 stays active'
      : `${chosen} chosen: ${judged.find((j) => j.name === chosen)!.reason}`;
  return {
    chosen,
    verdict,
    lines: judged.map((j) => ({ name: j.name, eligible: j.eligible, reason: j.reason })),
  };
}

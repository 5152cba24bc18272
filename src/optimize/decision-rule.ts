/**
 * The acceptance rule of a candidate against its parent (issue 56), pure: its inputs are the
 * per-task paired outcomes and token counts, never rollouts, so a selection stage and an
 * optimize-from-traces can share it.
 *
 * Test: the exact sign test (exact McNemar) on the discordant tasks. On paired binary outcomes
 * the tasks both solved or both failed carry no information about which is better; given `d`
 * discordant tasks, the candidate's wins are Binomial(d, 1/2) under "no difference". It is exact
 * at any sample size (16 selection tasks is far too few for a normal approximation) and needs no
 * resampling, so its p-value can be checked by hand; a paired bootstrap on 16 tasks has only a
 * few distinct resample means and no exact level.
 */

/** One selection task, run once by the parent and once by the candidate under the same conditions. */
export type PairedOutcome = {
  taskId: string;
  parentSuccess: boolean;
  candidateSuccess: boolean;
  parentTokens: number;
  candidateTokens: number;
};

export type Discordance = {
  n: number;
  /** Tasks the candidate solved and the parent did not. */
  wins: number;
  /** Tasks the parent solved and the candidate did not. */
  losses: number;
};

export function discordance(pairs: readonly PairedOutcome[]): Discordance {
  let wins = 0;
  let losses = 0;
  for (const p of pairs) {
    if (p.candidateSuccess && !p.parentSuccess) wins += 1;
    if (p.parentSuccess && !p.candidateSuccess) losses += 1;
  }
  return { n: pairs.length, wins, losses };
}

function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/** P(X ≤ k) for X ~ Binomial(n, p). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  let s = 0;
  for (let i = 0; i <= k; i++)
    s += Math.exp(logChoose(n, i) + i * Math.log(p) + (n - i) * Math.log(1 - p));
  return Math.min(1, s);
}

/** One-sided exact sign test: P(X ≥ wins) for X ~ Binomial(wins + losses, 1/2); 1 when no discordant task. */
export function signTestPValue(wins: number, losses: number): number {
  const d = wins + losses;
  if (d === 0) return 1;
  return 1 - binomialCdf(wins - 1, d, 0.5);
}

/**
 * One-sided upper (1 − alpha) Clopper–Pearson bound of a binomial proportion after `k`
 * successes in `d` trials: the p with P(X ≤ k | d, p) = alpha (1 when k = d), by bisection.
 */
export function clopperPearsonUpper(k: number, d: number, alpha: number): number {
  if (k >= d) return 1;
  let lo = k / d;
  let hi = 1;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (binomialCdf(k, d, mid) > alpha) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * Upper (1 − alpha) bound of the accuracy drop (parent − candidate, as a fraction of the n
 * tasks), conditional on the d discordant tasks: the candidate's losses among them are
 * Binomial(d, π), the drop is d(2π − 1)/n, and π takes its Clopper–Pearson upper bound. With no
 * discordant task the bound is 0: the two agreed on every task. One discordant task is a coin
 * flip under this bound, so a single win does not show non-inferiority within a margin smaller
 * than about one task.
 */
export function dropUpperBound(dc: Discordance, alpha: number): number {
  const d = dc.wins + dc.losses;
  if (d === 0 || dc.n === 0) return 0;
  const pi = clopperPearsonUpper(dc.losses, d, alpha);
  return (d * (2 * pi - 1)) / dc.n;
}

const meanOf = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export type DecisionParams = {
  /** optimize.alpha: the one-sided level of the test. @default 0.1 */
  alpha: number;
  /** optimize.margin: the largest accuracy drop (fraction) CO accepts. @default 0.025 */
  margin: number;
  /** The relative token cut a UT accuracy tie needs to be accepted. @default 0.1 */
  tieTokenCut: number;
};

export const DEFAULT_DECISION: DecisionParams = { alpha: 0.1, margin: 0.025, tieTokenCut: 0.1 };

export type Decision = {
  accepted: boolean;
  wins: number;
  losses: number;
  n: number;
  pValue: number;
  dropUpper: number;
  parentTokens: number;
  candidateTokens: number;
  reason: string;
};

const pct = (x: number) => `${(100 * x).toFixed(1)}`;

function base(pairs: readonly PairedOutcome[], p: DecisionParams) {
  const dc = discordance(pairs);
  return {
    ...dc,
    pValue: signTestPValue(dc.wins, dc.losses),
    dropUpper: dropUpperBound(dc, p.alpha),
    parentTokens: meanOf(pairs.map((x) => x.parentTokens)),
    candidateTokens: meanOf(pairs.map((x) => x.candidateTokens)),
  };
}

/**
 * Utility phase: accepted when the candidate solves more of the paired tasks than its parent and
 * the exact sign test rejects "no difference" at alpha; on a tie in solved tasks, only when its
 * mean tokens are at least `tieTokenCut` below the parent's.
 */
export function decideUtility(pairs: readonly PairedOutcome[], p: DecisionParams): Decision {
  const b = base(pairs, p);
  const tally = `${b.wins} won / ${b.losses} lost of ${b.n} paired tasks, sign test p = ${b.pValue.toFixed(3)}`;
  if (b.wins > b.losses) {
    const accepted = b.pValue <= p.alpha;
    return {
      ...b,
      accepted,
      reason: accepted
        ? `accepted: ${tally} ≤ alpha ${p.alpha}`
        : `rejected: more solved but not significant: ${tally} > alpha ${p.alpha}`,
    };
  }
  if (b.wins === b.losses) {
    const cut = b.parentTokens > 0 ? 1 - b.candidateTokens / b.parentTokens : 0;
    const accepted = cut >= p.tieTokenCut;
    return {
      ...b,
      accepted,
      reason: accepted
        ? `accepted: tie (${tally}) with ${pct(cut)}% fewer tokens ≥ ${pct(p.tieTokenCut)}%`
        : `rejected: tie (${tally}) and tokens cut ${pct(cut)}% < ${pct(p.tieTokenCut)}%`,
    };
  }
  return { ...b, accepted: false, reason: `rejected: fewer solved: ${tally}` };
}

/**
 * Compression phase, non-inferiority: accepted when the upper (1 − alpha) bound of the accuracy
 * drop is within `margin` and the candidate's mean tokens are below the parent's.
 */
export function decideCompression(pairs: readonly PairedOutcome[], p: DecisionParams): Decision {
  const b = base(pairs, p);
  const within = b.dropUpper <= p.margin + 1e-12;
  const fewer = b.candidateTokens < b.parentTokens;
  const what = `${b.wins} won / ${b.losses} lost of ${b.n}, drop ≤ ${pct(b.dropUpper)} points at ${pct(1 - p.alpha)}% (margin ${pct(p.margin)}), tokens ${Math.round(b.candidateTokens)} vs ${Math.round(b.parentTokens)}`;
  const accepted = within && fewer;
  const why = accepted
    ? 'accepted'
    : !within
      ? 'rejected: drop beyond margin'
      : 'rejected: no token cut';
  return { ...b, accepted, reason: `${why}: ${what}` };
}

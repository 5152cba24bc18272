/**
 * Candidate selection by per-condition tallies (seed 003): the paper's `reference` rule, and the
 * rule of runs recorded before the paired rule (paired-selection.ts) decided `heldout`, kept so
 * their `--resume` rechecks by the rule they were decided by. Pure: they see only tallies.
 * - utility phase (UT): the best accuracy wins, ties go to fewer peak tokens; it becomes the
 *   version when it is not less accurate than its parent (non-inferiority). A tie is accepted
 *   although the candidate usually keeps more: UT's objective is accuracy, the candidate answers
 *   failures the analyses found, and tokens are the compression phase's to cut (the paper adopts
 *   a UT update whenever one wins on its tasks).
 * - compression phase (CO): non-inferiority: accuracy may drop at most `tolerance` below the
 *   parent while tokens fall; among those the fewest peak tokens win, ties go to fewer total
 *   tokens (agent plus compressors, issue 11), then to higher accuracy.
 */
export type Score = {
  id: string;
  accuracy: number;
  peakTokens: number;
  /** Mean input + output tokens per task of the agent and both compressors. */
  totalTokens: number;
  /** Mean input tokens per task of the agent and both compressors. */
  inputTokens: number;
  tasks: number;
};

export type Selection = { winner: Score | null; reasons: Record<string, string> };

const fmt = (s: Score) =>
  `accuracy ${(100 * s.accuracy).toFixed(1)}%, peak ${Math.round(s.peakTokens)} tokens`;
const fmtTotal = (s: Score) => `${fmt(s)}, total ${Math.round(s.totalTokens)} tokens`;

export function selectUtility(parent: Score, candidates: Score[]): Selection {
  const reasons: Record<string, string> = {};
  const ranked = [...candidates].sort(
    (a, b) => b.accuracy - a.accuracy || a.peakTokens - b.peakTokens || a.id.localeCompare(b.id),
  );
  const best = ranked[0];
  const notWorse = best !== undefined && best.accuracy >= parent.accuracy - 1e-12;
  for (const c of ranked) {
    if (c === best && notWorse) reasons[c.id] = `selected: ${fmt(c)} vs parent ${fmt(parent)}`;
    else if (c === best)
      reasons[c.id] = `best candidate but below the parent (${fmt(parent)}): ${fmt(c)}`;
    else reasons[c.id] = `not the best: ${fmt(c)} vs ${fmt(best!)}`;
  }
  return { winner: notWorse ? best! : null, reasons };
}

/** Fewer peak tokens, then fewer total tokens: the compression phase's order of "cheaper". */
function cheaper(a: Score, b: Score): number {
  return a.peakTokens - b.peakTokens || a.totalTokens - b.totalTokens;
}

export function selectCompression(
  parent: Score,
  candidates: Score[],
  tolerance: number,
): Selection {
  const reasons: Record<string, string> = {};
  const eligible: Score[] = [];
  for (const c of candidates) {
    if (c.accuracy < parent.accuracy - tolerance - 1e-12) {
      reasons[c.id] =
        `accuracy fell beyond tolerance ${tolerance}: ${fmt(c)} vs parent ${fmt(parent)}`;
    } else if (cheaper(c, parent) >= 0) {
      reasons[c.id] = `no token cut: ${fmtTotal(c)} vs parent ${fmtTotal(parent)}`;
    } else {
      eligible.push(c);
    }
  }
  eligible.sort((a, b) => cheaper(a, b) || b.accuracy - a.accuracy || a.id.localeCompare(b.id));
  const winner = eligible[0] ?? null;
  for (const c of eligible) {
    reasons[c.id] =
      c === winner
        ? `selected: ${fmtTotal(c)} vs parent ${fmtTotal(parent)}`
        : `kept accuracy but cut fewer tokens: ${fmtTotal(c)}`;
  }
  return { winner, reasons };
}

/** A candidate's evaluation so far on the selection split of `n` tasks. */
export type EvalProgress = { successes: number; done: number; peakSum: number };

/**
 * UT early dropping: a candidate whose every remaining task would succeed still ends below
 * `needSuccesses` (the parent's, or the best finished candidate's) can no longer win.
 */
export function utCanStillWin(p: EvalProgress, n: number, needSuccesses: number): boolean {
  return p.successes + (n - p.done) >= needSuccesses;
}

/**
 * CO early dropping: a candidate is dropped only when it can no longer reach the accuracy
 * threshold (`minSuccesses`), or can no longer get its mean peak tokens down to `maxMeanPeak`
 * (the parent's, or the best finished eligible candidate's) even if every remaining task took
 * no tokens. Fewer successes than the best candidate is no reason: within the tolerance,
 * selection ranks by tokens (issue 11; the UT rule used to be applied here).
 */
export function coCanStillWin(
  p: EvalProgress,
  n: number,
  limits: { minSuccesses: number; maxMeanPeak: number },
): boolean {
  return p.successes + (n - p.done) >= limits.minSuccesses && p.peakSum / n <= limits.maxMeanPeak;
}

/**
 * The tasks `reference` selection evaluates candidates on, from the stage's train rollouts
 * (paper v3 and its code): UT on D_cont, the tasks of the contrastive pairs (full context
 * succeeded, compression failed), or every compressed failure when there is no pair; CO on
 * D_succ, the tasks compression succeeded on.
 */
export function referenceSet(
  phase: 'ut' | 'co',
  compressed: readonly { task_id: string; success: boolean }[],
  pairTaskIds: readonly string[],
): string[] {
  if (phase === 'co') return compressed.filter((r) => r.success).map((r) => r.task_id);
  if (pairTaskIds.length > 0) return [...pairTaskIds];
  return compressed.filter((r) => !r.success).map((r) => r.task_id);
}

const fmtRef = (s: Score) =>
  `accuracy ${(100 * s.accuracy).toFixed(1)}%, input ${Math.round(s.inputTokens)} tokens`;

/**
 * `reference` selection (paper v3, its code): the best accuracy on the phase's set wins, ties to
 * the fewest total input tokens (agent and compressors). The parent's score is its own train
 * rollouts on the same set (0 successes on D_cont, all on D_succ by construction). UT: the
 * winner must beat the parent's accuracy; CO: it must match it with fewer input tokens, or beat it.
 */
export function selectReference(phase: 'ut' | 'co', parent: Score, candidates: Score[]): Selection {
  const reasons: Record<string, string> = {};
  const ranked = [...candidates].sort(
    (a, b) => b.accuracy - a.accuracy || a.inputTokens - b.inputTokens || a.id.localeCompare(b.id),
  );
  const best = ranked[0];
  const beats = (c: Score) =>
    c.accuracy > parent.accuracy + 1e-12 ||
    (phase === 'co' &&
      Math.abs(c.accuracy - parent.accuracy) <= 1e-12 &&
      c.inputTokens < parent.inputTokens);
  const winner = best !== undefined && beats(best) ? best : null;
  for (const c of ranked) {
    if (c === winner) reasons[c.id] = `selected: ${fmtRef(c)} vs parent ${fmtRef(parent)}`;
    else if (c === best)
      reasons[c.id] = `best candidate but not better than parent (${fmtRef(parent)}): ${fmtRef(c)}`;
    else reasons[c.id] = `not the best: ${fmtRef(c)} vs ${fmtRef(best!)}`;
  }
  return { winner, reasons };
}

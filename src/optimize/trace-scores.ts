import type { ReplayMetrics } from '../domain/index.js';
import type { TraceReplay } from '../experiment/index.js';
import {
  decideCompression,
  decideUtility,
  type Decision,
  type DecisionParams,
  type PairedOutcome,
} from './decision-rule.js';
import type { Phase } from './params.js';

/** A trace stage's decision on paired conversations: UT by the sign test, CO by non-inferiority. */
export function decide(phase: Phase, pairs: PairedOutcome[], params: DecisionParams): Decision {
  return phase === 'ut' ? decideUtility(pairs, params) : decideCompression(pairs, params);
}

/**
 * Conversations as paired units: parent and candidate replayed on the same recorded
 * conversation, compared by that conversation's agreement (agreeing / compressed steps), then
 * its probe recall. The one that scores higher "solves" it and the other does not; equal scores
 * are a concordant pair. The decision rule's exact sign test then counts conversations the
 * candidate improved against those it made worse (the sign test for paired scores); an
 * all-or-nothing outcome per conversation would call nearly every long conversation failed under
 * both and leave nothing to compare.
 */
export function paired(
  parent: readonly TraceReplay[],
  candidate: readonly TraceReplay[],
): PairedOutcome[] {
  const byId = new Map(candidate.map((r) => [r.traceId, r]));
  const peak = (r: TraceReplay | undefined) =>
    r ? Math.max(0, ...r.steps.map((s) => s.viewTokens)) : 0;
  return parent.map((r) => {
    const c = byId.get(r.traceId);
    const order = c ? compareScores(conversationScore(c), conversationScore(r)) : -1;
    return {
      taskId: r.traceId,
      parentSuccess: order <= 0,
      candidateSuccess: order >= 0,
      parentTokens: peak(r),
      candidateTokens: peak(c),
    };
  });
}

/** A conversation's agreement, then probe recall (1 where nothing was compressed or probed). */
export function conversationScore(r: TraceReplay): number[] {
  const compressed = r.steps.filter((s) => s.compressed);
  const kept = r.steps.reduce((n, s) => n + s.kept.length, 0);
  const probes = kept + r.steps.reduce((n, s) => n + s.lost.length, 0);
  return [
    compressed.length === 0 ? 1 : compressed.filter((s) => s.agrees).length / compressed.length,
    probes === 0 ? 1 : kept / probes,
  ];
}

/** Lexicographic order of two scores: 1 when `a` is higher, -1 when lower, 0 when equal. */
function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    if (Math.abs(a[i]! - b[i]!) > 1e-12) return a[i]! > b[i]! ? 1 : -1;
  }
  return 0;
}

/** Agreement, then probe recall, then fewer peak tokens (issue #57's selection order). */
export function better(a: ReplayMetrics, b: ReplayMetrics): boolean {
  const x = [a.agreement ?? 1, a.probeRecall ?? 1, -a.peakTokens];
  const y = [b.agreement ?? 1, b.probeRecall ?? 1, -b.peakTokens];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return false;
}

import { toVersionRow } from '../guidelines/store.js';
import { selectCompression, selectReference, selectUtility, type Score } from './selection.js';
import type { CandidateReport, PhaseContext, Stage } from './stage.js';
import type { CandidateSlots } from './stage-candidates.js';
import type { StageEvaluation, Tally } from './stage-evaluate.js';

/**
 * Stage 5, selection: the phase's rule (selection.ts) picks the winner among the candidates
 * that finished; every candidate gets a report line, and its guideline file and version row get
 * its status, metrics and the reason. Returns the accepted id (null: the parent stays).
 */
export function selectWinner(
  pc: PhaseContext,
  stage: Stage,
  slots: CandidateSlots,
  ev: StageEvaluation,
): { accepted: string | null; reports: CandidateReport[] } {
  const { accepted, reports } = judgeCandidates(pc, stage, slots, ev);
  recordVerdicts(pc, stage, ev, reports);
  return { accepted, reports };
}

/** The rule's verdict on every candidate, without writing anything (stage-recheck.ts uses it). */
export function judgeCandidates(
  pc: PhaseContext,
  stage: Stage,
  slots: CandidateSlots,
  ev: StageEvaluation,
): { accepted: string | null; reports: CandidateReport[] } {
  const n = ev.tasks.length + ev.lost.length;
  const reports: CandidateReport[] = [];
  const finished: Score[] = [];
  for (const c of ev.candidates) {
    if (c.tally.dropped) {
      reports.push(
        unscored(c.slot, `dropped early after ${c.tally.tasks}/${n} tasks: it could no longer win`),
      );
    } else {
      finished.push(toScore(c.slot.id!, c.tally));
    }
  }
  const parent = toScore(stage.parent.id, ev.parent);
  const selection =
    ev.mode === 'reference'
      ? selectReference(stage.phase, parent, finished)
      : stage.phase === 'ut'
        ? selectUtility(parent, finished)
        : selectCompression(parent, finished, pc.env.config.optimize.tolerance);
  for (const s of finished) {
    reports.push({
      id: s.id,
      index: ev.candidates.find((c) => c.slot.id === s.id)!.slot.index,
      status: selection.winner?.id === s.id ? 'accepted' : 'rejected',
      reason: selection.reasons[s.id] ?? '',
      accuracy: s.accuracy,
      peakTokens: s.peakTokens,
      inputTokens: s.inputTokens,
    });
  }
  reports.push(...unscoredReports(slots));
  reports.sort((a, b) => a.index - b.index);
  return { accepted: selection.winner?.id ?? null, reports };
}

/** Each candidate's status, metrics and reason into its guideline file and version row. */
function recordVerdicts(
  pc: PhaseContext,
  stage: Stage,
  ev: StageEvaluation,
  reports: CandidateReport[],
): void {
  for (const r of reports) {
    if (r.id === null) continue;
    const t = ev.candidates.find((c) => c.slot.id === r.id)?.tally;
    pc.guidelines.update(r.id, {
      status: r.status,
      metrics: {
        ...(t
          ? { accuracy: t.accuracy, peakTokens: t.meanPeak, steps: t.meanSteps, costUsd: t.cost }
          : {}),
        split:
          ev.mode === 'reference'
            ? `${ev.tasks[0]?.split ?? 'train'} (${stage.phase === 'ut' ? 'D_cont' : 'D_succ'})`
            : (ev.tasks[0]?.split ?? ''),
        tasks: t?.tasks ?? 0,
        selection: r.reason,
      },
    });
    pc.env.store.saveGuidelineVersion(toVersionRow(pc.guidelines.get(r.id)));
  }
}

function toScore(id: string, t: Tally): Score {
  return {
    id,
    accuracy: t.accuracy,
    peakTokens: t.meanPeak,
    totalTokens: t.meanTotal,
    inputTokens: t.meanInput,
    tasks: t.tasks,
  };
}

/** The report line of each candidate that was not evaluated (invalid, or a repeat), with why. */
export function unscoredReports(slots: CandidateSlots): CandidateReport[] {
  return slots.flatMap((slot) => (slot.reason === null ? [] : [unscored(slot, slot.reason)]));
}

function unscored(slot: CandidateSlots[number], reason: string): CandidateReport {
  return {
    id: slot.id,
    index: slot.index,
    status: 'rejected',
    reason,
    accuracy: null,
    peakTokens: null,
    inputTokens: null,
  };
}

import { toVersionRow } from '../guidelines/index.js';
import { selectCompression, selectReference, selectUtility, type Score } from './selection.js';
import type { CandidateReport, PhaseContext, Stage } from './stage.js';
import type { CandidateSlots } from './stage-candidates.js';
import { byTaskOf, pairedRule, type StageEvaluation, type Tally } from './stage-evaluate.js';
import type { DecisionParams } from './decision-rule.js';
import { choosePaired, pairOutcomes } from './paired-selection.js';

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
        unscored(
          c.slot,
          c.dropReason ??
            (pairedRule(pc)
              ? `dropped by racing after ${c.tally.tasks}/${n} tasks (${n - c.tally.tasks} rollouts saved): no outcome of the rest could get it accepted`
              : `dropped early after ${c.tally.tasks}/${n} tasks: it could no longer win`),
        ),
      );
    } else {
      finished.push(toScore(c.slot.id!, c.tally));
    }
  }
  const parent = toScore(stage.parent.id, ev.parent);
  const paired = pairedRule(pc);
  const selection = paired
    ? pairedSelection(pc, stage, ev, finished, paired)
    : ev.mode === 'reference'
      ? selectReference(stage.phase, parent, finished)
      : stage.phase === 'ut'
        ? selectUtility(parent, finished)
        : // Runs recorded before the paired rule: their tolerance was the old default, 0.
          selectCompression(parent, finished, 0);
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
          ev.mode !== 'heldout'
            ? `${ev.tasks[0]?.split ?? 'train'} (${stage.phase === 'ut' ? 'D_cont' : 'D_succ'})`
            : (ev.tasks[0]?.split ?? ''),
        tasks: t?.tasks ?? 0,
        selection: r.reason,
      },
    });
    pc.env.store.saveGuidelineVersion(toVersionRow(pc.guidelines.get(r.id)));
  }
}

/**
 * The paired rule (paired-selection.ts): each finished candidate against the parent's outcome on
 * every compared task (ev.tasks: the same for all, lost ones left out).
 */
function pairedSelection(
  pc: PhaseContext,
  stage: Stage,
  ev: StageEvaluation,
  finished: Score[],
  decision: DecisionParams,
): { winner: { id: string } | null; reasons: Record<string, string> } {
  const parent = byTaskOf(pc, stage.compressed, ev.tasks);
  const candidates = finished.map((s) => {
    const c = ev.candidates.find((x) => x.slot.id === s.id)!;
    return { id: s.id, pairs: pairOutcomes(parent, byTaskOf(pc, c.condition, ev.tasks)) };
  });
  const chosen = choosePaired(stage.phase, candidates, decision);
  return { winner: chosen.winner ? { id: chosen.winner } : null, reasons: chosen.reasons };
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

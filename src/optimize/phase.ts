import type { GuidelinePair } from '../domain/index.js';
import type { GuidelineKind } from '../guidelines/index.js';
import type { Phase } from './params.js';
import {
  makeStage,
  StageResultSchema,
  withKind,
  type PhaseContext,
  type Stage,
  type StageResult,
} from './stage.js';
import { stageAnalyses } from './stage-analyses.js';
import { stageCandidates } from './stage-candidates.js';
import { evaluateCandidates } from './stage-evaluate.js';
import { trainRollouts } from './stage-rollouts.js';
import { lostRollouts, rerunDecided } from './stage-recheck.js';
import { selectWinner, unscoredReports } from './stage-select.js';

export type { PhaseContext, StageResult } from './stage.js';
export { CandidateReportSchema, StageResultSchema } from './stage.js';

/**
 * One phase of one guideline kind (seed 003), stage by stage, each checkpointed in the run so
 * --resume continues where a killed run stopped and redoes no finished rollout:
 * 1. train rollouts (stage-rollouts.ts)   — stored rollouts
 * 2. analyses, train split only (stage-analyses.ts) — `<stage>:analyses`
 * 3. K updater candidates (stage-candidates.ts) — `<stage>:candidates`, guideline files
 * 4. evaluation on the selection split with early dropping (stage-evaluate.ts) — stored rollouts
 * 5. selection (stage-select.ts) — `<stage>:result`, with the rollouts the infrastructure lost
 * A stage already decided only runs those lost rollouts again (stage-recheck.ts).
 */
export async function runPhase(
  pc: PhaseContext,
  phase: Phase,
  kind: GuidelineKind,
  round: number,
  current: GuidelinePair,
): Promise<{ pair: GuidelinePair; result: StageResult }> {
  const stage = makeStage(pc, phase, kind, round, current);
  const done = pc.env.store.getState(pc.runId, `${stage.name}:result`, StageResultSchema);
  if (done) {
    const result = await rerunDecided(pc, stage, done);
    return { pair: withKind(current, kind, done.accepted, pc.guidelines), result };
  }

  await trainRollouts(pc, stage);

  const analyses = await stageAnalyses(pc, stage);
  const base = {
    stage: stage.name,
    parent: stage.parent.id,
    pairs: analyses.found,
    analyses: analyses.usable.length,
    failedAnalyses: analyses.records.length - analyses.usable.length,
    analysisSource: analyses.source,
    isolated: stage.isolated,
    selection: pc.selection,
  };
  if (analyses.usable.length === 0) {
    pc.log(`${stage.name}: nothing to learn from (no usable analyses); ${stage.parent.id} stays`);
    return finish(pc, stage, {
      ...base,
      selectionTasks: 0,
      accepted: null,
      candidates: [],
      incomplete: lostRollouts(pc, stage, []),
    });
  }

  const slots = await stageCandidates(pc, stage, analyses.usable);
  if (slots.every((s) => s.reason !== null)) {
    // Nothing new to measure (every proposal invalid or a copy of the parent): no rollout is run.
    pc.log(`${stage.name}: no candidate to evaluate; ${stage.parent.id} stays`);
    return finish(pc, stage, {
      ...base,
      selectionTasks: 0,
      accepted: null,
      candidates: unscoredReports(slots),
      incomplete: lostRollouts(pc, stage, slots),
    });
  }
  const evaluation = await evaluateCandidates(pc, stage, slots);
  const { accepted, reports } = selectWinner(pc, stage, slots, evaluation);
  const selectionTasks = evaluation.tasks.length;
  const n = selectionTasks + evaluation.lost.length;
  const selectionRollouts = {
    ran: evaluation.candidates.reduce((a, c) => a + c.tally.tasks, 0),
    saved: evaluation.candidates.reduce((a, c) => a + (c.tally.dropped ? n - c.tally.tasks : 0), 0),
  };
  pc.log(
    accepted
      ? `${stage.name}: ${accepted} accepted (${reports.find((r) => r.id === accepted)?.reason})`
      : `${stage.name}: no candidate accepted; ${stage.parent.id} stays`,
  );
  const incomplete = lostRollouts(pc, stage, slots);
  return finish(pc, stage, {
    ...base,
    selectionTasks,
    accepted,
    candidates: reports,
    selectionRollouts,
    incomplete,
  });
}

function finish(pc: PhaseContext, stage: Stage, result: StageResult) {
  pc.env.store.setState(pc.runId, `${stage.name}:result`, result);
  return { pair: withKind(stage.current, stage.kind, result.accepted, pc.guidelines), result };
}

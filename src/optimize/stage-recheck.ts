import { CandidateSlotsSchema } from '../guidelines/index.js';
import { rolloutKey } from '../store/index.js';
import { infraFailures } from '../store/index.js';
import { candidateConditions, evaluateCandidates } from './stage-evaluate.js';
import { trainRollouts } from './stage-rollouts.js';
import { judgeCandidates } from './stage-select.js';
import type { CandidateSlots } from './stage-candidates.js';
import type { PhaseContext, RolloutKey, Stage, StageResult } from './stage.js';

/**
 * The stage's rollouts the infrastructure lost and that are still listed (issue #31, item 10):
 * its train rollouts and the selection rollouts of the parent and the valid candidates.
 */
export function lostRollouts(pc: PhaseContext, stage: Stage, slots: CandidateSlots): RolloutKey[] {
  const train = stage.phase === 'ut' ? [stage.raw, stage.compressed] : [stage.compressed];
  const selectTasks = pc.selection === 'heldout' ? pc.select : pc.train;
  const select = [stage.compressed, ...candidateConditions(pc, stage, slots)];
  const keys = new Set([
    ...train.flatMap((c) => pc.train.map((t) => rolloutKey(c.label, t.id))),
    ...select.flatMap((c) => selectTasks.map((t) => rolloutKey(c.label, t.id))),
  ]);
  return infraFailures(pc.env.store, pc.runId)
    .filter((f) => keys.has(rolloutKey(f.condition, f.taskId)))
    .map((f) => ({ condition: f.condition, taskId: f.taskId }));
}

/**
 * `--resume` of a stage already decided: the rollouts the infrastructure lost in it are run
 * again, so the run's rollouts, tables and exports are complete; the selection rule is then
 * applied to the completed rollouts and its answer recorded as `recheck`. The recorded decision
 * stands: a resume continues what was recorded, and later stages were built on it (their
 * parent, candidates and rollouts). Analyses and candidates are not rewritten. docs/reliability.md.
 */
export async function rerunDecided(
  pc: PhaseContext,
  stage: Stage,
  done: StageResult,
): Promise<StageResult> {
  const { store } = pc.env;
  const slots = store.getState(pc.runId, `${stage.name}:candidates`, CandidateSlotsSchema) ?? [];
  const lost = lostRollouts(pc, stage, slots);
  // Nothing lost now, but the decision lacked rollouts: an earlier stage's resume ran them (a
  // stage whose parent is the previous one's shares its selection rollouts). Recheck all the same.
  if (lost.length === 0 && (done.incomplete.length === 0 || done.recheck)) return done;
  pc.log(
    lost.length > 0
      ? `${stage.name}: decided without ${lost.length} rollout(s) the infrastructure lost; running them again`
      : `${stage.name}: decided without ${done.incomplete.length} rollout(s) the infrastructure lost; an earlier stage ran them again`,
  );
  await trainRollouts(pc, stage);
  let accepted: string | null = null;
  let agrees: boolean | null = null;
  if (done.candidates.length > 0) {
    const evaluation = await evaluateCandidates(pc, stage, slots);
    accepted = judgeCandidates(pc, stage, slots, evaluation).accepted;
    agrees = accepted === done.accepted;
    const now = accepted ?? `${stage.parent.id} (no candidate)`;
    pc.log(
      agrees
        ? `${stage.name}: with them, the rule picks the same (${now})`
        : `${stage.name}: with them, the rule would pick ${now}; the run keeps ` +
            `${done.accepted ?? stage.parent.id}, as decided`,
    );
  }
  const missing = lostRollouts(pc, stage, slots).length;
  const result: StageResult = { ...done, recheck: { accepted, agrees, missing } };
  store.setState(pc.runId, `${stage.name}:result`, result);
  return result;
}

import type { TaskInfo } from '../bench/index.js';
import type { Condition } from '../experiment/index.js';
import { everyPair, runJobsIn } from '../experiment/index.js';
import type { PhaseContext, Stage } from './stage.js';

/** Runs every (condition, task) not yet stored, reporting progress under `label`. */
export async function runJobs(
  pc: PhaseContext,
  label: string,
  conditions: Condition[],
  tasks: TaskInfo[],
): Promise<void> {
  await runJobsIn(pc.env, {
    runId: pc.runId,
    jobs: everyPair(conditions, tasks),
    onRollout: (o, done, total) => pc.progress(label, done, total, o),
  });
}

/**
 * Stage 1, train rollouts: UT runs full context and the parent's compressed condition on the
 * train split, CO only the compressed one. Checkpoint: the stored rollouts themselves.
 */
export async function trainRollouts(pc: PhaseContext, stage: Stage): Promise<void> {
  const conditions = stage.phase === 'ut' ? [stage.raw, stage.compressed] : [stage.compressed];
  pc.log(`${stage.name}: train rollouts (${conditions.map((c) => c.label).join(', ')})`);
  await runJobs(pc, `${stage.name} train`, conditions, pc.train);
}

/** Stored rollouts of `label` on the train split only (a label may also hold selection rollouts). */
export function trainRows(pc: PhaseContext, label: string) {
  const ids = new Set(pc.train.map((t) => t.id));
  return pc.env.store.rollouts(pc.runId, label).filter((r) => ids.has(r.task_id));
}

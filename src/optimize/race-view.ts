import type { TaskInfo } from '../bench/index.js';
import type { EvalProgress } from './selection.js';

/** A task's outcome in one condition: what the paired rule reads. */
export type TaskOutcome = { success: boolean; tokens: number };

export type Live = EvalProgress & { dropped: boolean; byTask: Map<string, TaskOutcome> };

/**
 * Decides, before each candidate rollout, whether the candidate can still win (false: it is
 * dropped and its remaining rollouts are skipped). `live` holds every candidate's progress.
 */
export type DropRule = (self: Live, live: Live[], n: number) => boolean;

/**
 * What a candidate has finished, as racing may read it: the outcomes of the longest run of
 * `tasks`, in their order, that it has all finished. Rollouts run concurrently and finish in
 * any order; judging only this prefix makes a drop, and the tally it leaves, the same however
 * the machine scheduled them (a drop at prefix k is also one at every longer prefix: the rule
 * is exact over every completion of what is left, so it never comes back).
 */
export function inOrderView(t: Live, tasks: TaskInfo[]): Live {
  const byTask = new Map<string, TaskOutcome>();
  for (const task of tasks) {
    const o = t.byTask.get(task.id);
    if (!o) break;
    byTask.set(task.id, o);
  }
  const outcomes = [...byTask.values()];
  return {
    ...t,
    byTask,
    done: outcomes.length,
    successes: outcomes.filter((o) => o.success).length,
    peakSum: outcomes.reduce((a, o) => a + o.tokens, 0),
  };
}

/** The tasks of the shortest prefix at which `canStillWin` drops the candidate; null: none. */
export function droppedPrefix(
  t: Live,
  tasks: TaskInfo[],
  live: Live[],
  canStillWin: DropRule,
): Set<string> | null {
  for (let k = 0; k < tasks.length; k++) {
    const prefix = tasks.slice(0, k);
    if (prefix.some((task) => !t.byTask.has(task.id))) return null;
    if (!canStillWin(inOrderView(t, prefix), live, tasks.length)) {
      return new Set(prefix.map((task) => task.id));
    }
  }
  return null;
}

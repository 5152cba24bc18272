import type { TaskInfo } from '../bench/index.js';

/**
 * The selection units of `--repeats N` (issue 56): every selection task once as itself (so a run
 * with N = 1 is today's, rollout for rollout), then N − 1 repeats, each its own task id
 * (`<id>~r<k>`), its own rollout and its own sampling seed k (TaskInfo.repeat), so a real model's
 * variance shows and each repeat has its own call-cache entries. The paired rule counts every
 * unit as one pair (docs/method.md says why units, not a per-task majority).
 */
export function repeatUnits(tasks: readonly TaskInfo[], repeats: number): TaskInfo[] {
  const out = [...tasks];
  for (let k = 2; k <= repeats; k++) {
    for (const t of tasks) out.push({ ...t, id: `${t.id}~r${k}`, repeat: { of: t.id, index: k } });
  }
  return out;
}

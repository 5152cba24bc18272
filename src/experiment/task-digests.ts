import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Benchmark, TaskInfo } from '../bench/index.js';
import { InvalidInputError, type Warn } from '../errors.js';
import type { RunStore } from '../store/index.js';

const STATE_KEY = 'task-digests';
const DigestsSchema = z.record(z.string(), z.string());

/** A task's content digest: the benchmark's own, else a hash of what it says of the task. */
export async function taskDigest(bench: Benchmark, task: TaskInfo): Promise<string> {
  if (bench.taskDigest) return bench.taskDigest(task.id);
  return createHash('sha256').update(JSON.stringify(task)).digest('hex').slice(0, 16);
}

/**
 * Records the digest of every task a run uses, the first time the run meets it; a task whose
 * digest differs from the recorded one changed since (an edited task file) and a resumed run
 * would mix two versions of it: refused, or with `allow` only reported (issue #31).
 */
export async function checkTaskDigests(opts: {
  store: RunStore;
  runId: string;
  bench: Benchmark;
  tasks: readonly TaskInfo[];
  allow: boolean;
  warn: Warn;
}): Promise<void> {
  const recorded = opts.store.getState(opts.runId, STATE_KEY, DigestsSchema) ?? {};
  const unique = [...new Map(opts.tasks.map((t) => [t.id, t])).values()];
  const current = await Promise.all(unique.map((t) => taskDigest(opts.bench, t)));
  const changed = unique.filter(
    (t, i) => recorded[t.id] !== undefined && recorded[t.id] !== current[i],
  );
  if (changed.length > 0) {
    const names = changed.map((t) => t.id).join(', ');
    if (!opts.allow) {
      throw new InvalidInputError(
        `task ${names} changed since run ${opts.runId} started, so resuming it would mix two versions of it; restore the task file, start a new run, or allow task changes (\`run.allow_task_changes\`) to go on with the new version`,
        { what: 'resumed tasks', value: names, options: ['run.allow_task_changes'] },
      );
    }
    opts.warn(
      `task ${names} changed since run ${opts.runId} started; going on with the new version (\`run.allow_task_changes\`)`,
      ['run.allow_task_changes'],
    );
  }
  const next = { ...recorded };
  unique.forEach((t, i) => (next[t.id] = current[i]!));
  if (JSON.stringify(next) !== JSON.stringify(recorded))
    opts.store.setState(opts.runId, STATE_KEY, next);
}

import { InvalidInputError, TaskFileError } from '../errors.js';
import type { Benchmark, TaskInfo } from './types.js';

/** The splits a benchmark's tasks are in, in the order they first appear. */
export function splitsOf(tasks: readonly TaskInfo[]): string[] {
  return [...new Set(tasks.map((t) => t.split))];
}

/**
 * The tasks of `split`, narrowed to `ids` when given. An unknown split or task id exits 2 and
 * lists the valid ones. A benchmark that cannot list its tasks (AppWorld without APPWORLD_ROOT)
 * resolves ids one by one.
 */
export async function tasksOfSplit(
  bench: Pick<Benchmark, 'listTasks' | 'getTask'>,
  split: string,
  ids: readonly string[] | null,
): Promise<TaskInfo[]> {
  if (ids) return tasksById(bench, split, ids);
  const tasks = await bench.listTasks(split);
  if (tasks.length > 0) return tasks;
  throw InvalidInputError.unknown('split', split, splitsOf(await bench.listTasks()));
}

async function tasksById(
  bench: Pick<Benchmark, 'listTasks' | 'getTask'>,
  split: string,
  ids: readonly string[],
): Promise<TaskInfo[]> {
  const all = await bench.listTasks().catch(() => []);
  if (all.length === 0) return Promise.all(ids.map((id) => bench.getTask(id)));
  const byId = new Map(all.map((t) => [t.id, t]));
  const inSplit = all.filter((t) => t.split === split).map((t) => t.id);
  return Promise.all(
    ids.map(async (id) => {
      const t = byId.get(id);
      if (t) return t;
      // A task whose file is invalid is not listed; naming it says what is wrong with its file.
      return bench.getTask(id).catch((err: unknown) => {
        if (err instanceof TaskFileError) throw err;
        throw InvalidInputError.unknown(
          'task',
          id,
          inSplit,
          `tasks of ${split}; all: acon tasks list`,
        );
      });
    }),
  );
}

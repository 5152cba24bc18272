import { readFile, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { z } from 'zod';
import { BenchmarkError, TaskFileError } from '../errors.js';

/**
 * A benchmark's folder of task files (apptown, qa, mcp): every `*.yaml` is parsed by the
 * benchmark's own parser; a bad file becomes a problem naming its file and field, and the others
 * still load (acon refuses to run a split with problems unless told to skip them, task-problems.ts).
 */
export type TaskLoad<T> = { tasks: T[]; problems: TaskFileError[] };

/** A task file's name without `.yaml`: the id its task must have. */
function fileStem(file: string): string {
  return basename(file).replace(/\.ya?ml$/, '');
}

/** Refuses a task whose id is not its file's name (ids are how commands and runs name tasks). */
export function checkIdIsFileName(file: string, id: string): void {
  const stem = fileStem(file);
  if (stem === id) return;
  throw new TaskFileError(
    file,
    'id',
    `"${id}" differs from the file name; fix: rename the file to ${id}.yaml or change id to "${stem}"`,
  );
}

/**
 * A task file's schema error as one TaskFileError: the first problem's field, what is wrong, and
 * the fix (`hint` where there is no more specific one). Parse with `{ reportInput: true }`, so
 * a missing field can be told from a wrong one.
 */
export function schemaError(file: string, error: z.ZodError, hint: string): TaskFileError {
  const [issue, ...more] = error.issues;
  if (!issue) return new TaskFileError(file, '(top level)', `invalid task; fix: ${hint}`);
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
  const others = more.length > 0 ? ` (and ${more.length} more problem(s))` : '';
  return new TaskFileError(file, field, `${issue.message}; fix: ${fixFor(issue, hint)}${others}`);
}

/** What to do about one zod issue, in words a task author can act on. */
function fixFor(issue: z.core.$ZodIssue, hint: string): string {
  const last = issue.path[issue.path.length - 1];
  if (issue.input === undefined && last !== undefined) {
    const values =
      issue.code === 'invalid_value' ? `, one of: ${issue.values.map(String).join(', ')}` : '';
    return `add the required field "${String(last)}"${values}`;
  }
  switch (issue.code) {
    case 'invalid_type':
      return `make it a ${issue.expected}`;
    case 'invalid_value':
      return `use one of: ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `remove ${issue.keys.map((k) => `"${k}"`).join(', ')} (${hint})`;
    case 'too_small':
      return `use at least ${String(issue.minimum)}`;
    case 'too_big':
      return `use at most ${String(issue.maximum)}`;
    case 'custom':
    case 'invalid_format':
      return 'change the value as the message says';
    default:
      return hint;
  }
}

/**
 * Every `*.yaml` in `dir`, in name order, through `parse` (which throws TaskFileError); ids must
 * be unique across the folder. `bench` names the benchmark in the error for an unreadable folder.
 */
export async function loadTaskDir<T extends { id: string }>(
  dir: string,
  bench: string,
  parse: (file: string, text: string) => T,
): Promise<TaskLoad<T>> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.ya?ml$/.test(n)).sort();
  } catch (err) {
    const why = (err as Error).message;
    throw new BenchmarkError(`cannot read the ${bench} task folder ${dir}: ${why}`, { cause: err });
  }
  const tasks: T[] = [];
  const problems: TaskFileError[] = [];
  const byId = new Map<string, string>();
  for (const name of names) {
    const file = join(dir, name);
    try {
      const task = parse(file, await readFile(file, 'utf8'));
      const other = byId.get(task.id);
      if (other) {
        const fix = 'fix: give each task a unique id';
        throw new TaskFileError(file, 'id', `"${task.id}" is also the id of ${other}; ${fix}`);
      }
      byId.set(task.id, file);
      tasks.push(task);
    } catch (err) {
      if (err instanceof TaskFileError) problems.push(err);
      else {
        const detail = `${(err as Error).message}; fix: check the file is readable`;
        problems.push(new TaskFileError(file, '(file)', detail, { cause: err }));
      }
    }
  }
  return { tasks, problems };
}

/**
 * The task `id` of a load. A task whose file is invalid is not unknown: its problem is thrown,
 * saying what is wrong with the file; an unknown id names the command that lists the tasks.
 */
export function findTask<T extends { id: string }>(
  load: TaskLoad<T>,
  id: string,
  bench: string,
): T {
  const task = load.tasks.find((t) => t.id === id);
  if (task) return task;
  const broken = load.problems.find((p) => fileStem(p.file) === id);
  if (broken) throw broken;
  throw new BenchmarkError(
    `unknown ${bench} task "${id}"; list them with: acon tasks list --bench ${bench}`,
  );
}

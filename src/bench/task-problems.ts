import { TaskFileError, type Warn } from '../errors.js';
import type { Benchmark } from './types.js';

/** The option the error names: the runner's `skipInvalidTasks` (the CLI's --skip-invalid-tasks). */
const SKIP = ['skipInvalidTasks'];

/**
 * Invalid task files stop a run (issue #17: a split must not silently shrink): the first one
 * is thrown naming its file and field. With `skip`, the valid tasks run and `warn` says how
 * many files were left out.
 */
export async function requireValidTasks(
  bench: Pick<Benchmark, 'loadProblems'>,
  skip: boolean,
  warn: Warn,
): Promise<void> {
  const problems = (await bench.loadProblems?.()) ?? [];
  const first = problems[0];
  if (!first) return;
  if (skip) {
    warn(
      `skipped ${problems.length} invalid task file${problems.length === 1 ? '' : 's'} (\`skipInvalidTasks\`); the first: ${first.message}`,
      SKIP,
    );
    return;
  }
  const more =
    problems.length > 1
      ? ` (${problems.length - 1} more invalid task files; see acon tasks list)`
      : '';
  const hint = `; or pass \`skipInvalidTasks\` to run without ${problems.length === 1 ? 'it' : 'them'}${more}`;
  if (first instanceof TaskFileError) {
    throw new TaskFileError(first.file, first.field, `${first.detail}${hint}`, {
      cause: first,
      options: SKIP,
    });
  }
  throw new TaskFileError('(tasks)', '(file)', `${first.message}${hint}`, {
    cause: first,
    options: SKIP,
  });
}

import type { InfraFailure } from '../domain/index.js';
import { wrapLine } from './fit-table.js';

/**
 * The rollouts the infrastructure failed, under a run's table (issue #31, item 10): they are
 * not in its accuracies, and `--resume` runs them again. Empty when there are none.
 * @example infraFailureLines(failures, 'acon compare --resume run-…', 100)
 */
export function infraFailureLines(
  failures: readonly InfraFailure[],
  resume: string,
  limit = 100,
): string {
  if (failures.length === 0) return '';
  const hang = ' '.repeat(10);
  const lines = [
    ...wrapLine(
      `${failures.length} rollout(s) failed by the infrastructure (a model call failed every attempt); not counted in accuracy; run them again with: ${resume}`,
      limit,
    ),
    ...failures.flatMap((f) =>
      wrapLine(`${f.condition} ${f.taskId}: ${f.error}`, limit - hang.length).map((l, i) =>
        i === 0 ? `${f.rolloutId.slice(0, 8).padEnd(8)}  ${l}` : `${hang}${l}`,
      ),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

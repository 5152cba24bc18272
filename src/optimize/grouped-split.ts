import type { TaskInfo } from '../bench/index.js';
import { InvalidInputError } from '../errors.js';
import { seededRandom } from '../seeded-random.js';

/**
 * A selection split that faces the test's shift (issue 56). apptown's test split holds out task
 * patterns (its generator's templates, e.g. `shop-cheapest-in-category-to-cart`) that train and
 * dev never use, and dev shares every pattern with train: a candidate chosen on dev is never
 * asked about a pattern the analyses did not see. This draws the selection tasks from the pooled
 * train and dev tasks by holding out whole patterns, seeded: every task that uses a held-out
 * pattern goes to selection, the others stay for training, so selection sees patterns training
 * never used, as the test does. A task's patterns are its template's `+`-separated parts; a
 * task with no template is grouped by its app mix (its sorted apps).
 */
export function taskPatterns(t: Pick<TaskInfo, 'template' | 'apps'>): string[] {
  if (t.template) return t.template.split('+');
  return [[...t.apps].sort().join('+')];
}

/**
 * Patterns are taken in a seeded order; one joins the held-out set when the selection it makes
 * stays within `size` tasks and leaves training a task (a pattern most tasks use would empty the
 * training split), until selection holds `size` tasks or no pattern fits. When none fits (a
 * trial's `--max-tasks 2` against patterns of three tasks each), the pattern with the fewest tasks
 * is held out and selection takes its first `size` tasks; its other tasks go to neither side, so
 * training still never sees it. A pool with fewer than two patterns cannot hold one out and
 * still train: that is an error naming `selectFrom` `split`, never an empty selection.
 */
export function groupedSelection(
  pool: readonly TaskInfo[],
  size: number,
  seed: number | string,
): { train: TaskInfo[]; select: TaskInfo[]; heldOut: string[] } {
  const patterns = [...new Set(pool.flatMap(taskPatterns))].sort();
  const random = seededRandom(seed, 'grouped selection');
  for (let i = patterns.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [patterns[i], patterns[j]] = [patterns[j]!, patterns[i]!];
  }
  const selected = (held: ReadonlySet<string>) =>
    pool.filter((t) => taskPatterns(t).some((p) => held.has(p)));
  const heldOut = new Set<string>();
  let count = 0;
  for (const p of patterns) {
    if (count >= size) break;
    const next = selected(new Set([...heldOut, p])).length;
    if (next <= size && next < pool.length) {
      heldOut.add(p);
      count = next;
    }
  }
  if (heldOut.size === 0) return smallestPatternHeldOut(pool, patterns, size, selected);
  const select = selected(heldOut);
  const ids = new Set(select.map((t) => t.id));
  return { train: pool.filter((t) => !ids.has(t.id)), select, heldOut: [...heldOut].sort() };
}

/** groupedSelection's fallback: the least used pattern held out, selection cut to `size`. */
function smallestPatternHeldOut(
  pool: readonly TaskInfo[],
  patterns: readonly string[],
  size: number,
  selected: (held: ReadonlySet<string>) => TaskInfo[],
): { train: TaskInfo[]; select: TaskInfo[]; heldOut: string[] } {
  // In the seeded order, the first of the least used patterns that leaves training a task.
  let best: { pattern: string; tasks: TaskInfo[] } | undefined;
  for (const pattern of patterns) {
    const tasks = selected(new Set([pattern]));
    if (tasks.length < pool.length && (!best || tasks.length < best.tasks.length))
      best = { pattern, tasks };
  }
  if (!best || size < 1) {
    throw new InvalidInputError(
      `grouped selection needs tasks of at least two task patterns (templates, else app mixes) ` +
        `to hold one out for selection and train on the others; these ${pool.length} tasks ` +
        `have ${patterns.length}: pass \`selectFrom\` split to select on the selection split as it is`,
      { what: 'selection source', value: 'grouped', options: ['selectFrom'] },
    );
  }
  const ids = new Set(best.tasks.map((t) => t.id));
  return {
    train: pool.filter((t) => !ids.has(t.id)),
    select: best.tasks.slice(0, size),
    heldOut: [best.pattern],
  };
}

/** How many of `evalTasks` use a pattern none of `seen` uses: the final table's one line. */
export function unseenPatterns(
  evalTasks: readonly TaskInfo[],
  seen: readonly TaskInfo[],
): { unseen: number; total: number } {
  const known = new Set(seen.flatMap(taskPatterns));
  const unseen = evalTasks.filter((t) => taskPatterns(t).some((p) => !known.has(p))).length;
  return { unseen, total: evalTasks.length };
}

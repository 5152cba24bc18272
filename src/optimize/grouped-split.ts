import type { TaskInfo } from '../bench/index.js';
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
 * stays within `size` tasks (a pattern most tasks use would empty the training split), until
 * selection holds `size` tasks or no pattern fits.
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
  const heldOut = new Set<string>();
  const selected = (held: Set<string>) =>
    pool.filter((t) => taskPatterns(t).some((p) => held.has(p)));
  let count = 0;
  for (const p of patterns) {
    if (count >= size) break;
    const next = selected(new Set([...heldOut, p])).length;
    if (next <= size) {
      heldOut.add(p);
      count = next;
    }
  }
  const select = selected(heldOut);
  const ids = new Set(select.map((t) => t.id));
  return { train: pool.filter((t) => !ids.has(t.id)), select, heldOut: [...heldOut].sort() };
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

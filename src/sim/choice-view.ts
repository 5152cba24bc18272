import {
  choiceCandidates,
  computeChoice,
  type ChoiceCondition,
  type Item,
  type ReferenceChoice,
  type ReferenceNeed,
  type ReferencePlan,
} from '../bench/index.js';
import { listGaps, pinnedWhere, withPinned } from './list-gaps.js';
import type { Seen } from './seen.js';
import type { Blocker } from './reference-needs.js';
import { clip } from './text.js';

/**
 * A value a step computes from data (a declared choice: the largest file, a sum), as the agent
 * computes it from the items it can see, and what its reasoning says about it.
 */

/** The condition a choice filters by, as the agent's reasoning states it ("relationship is classmate"). */
function conditionText(field: string, cond: ChoiceCondition): string {
  if (typeof cond === 'string' || typeof cond === 'number')
    return `${field} is ${clip(String(cond), 40)}`;
  if ('prefix' in cond) return `${field} starts with ${clip(cond.prefix, 40)}`;
  const bounds = [
    cond.gte === undefined ? null : `at least ${cond.gte}`,
    cond.lte === undefined ? null : `at most ${cond.lte}`,
  ].filter((b) => b !== null);
  return `${field} is ${bounds.join(' and ')}`;
}

/**
 * What the agent says it filtered by: a model reasons "the newest of the contacts whose
 * relationship is classmate", so a field it only filters on is named in its reasoning, where the
 * compression analysis sees it used (issue 22).
 */
function filterNote(choice: ReferenceChoice): string {
  const where = Object.entries(choice.where ?? {});
  if (where.length === 0) return '';
  return ` where ${where.map(([f, c]) => conditionText(f, c)).join(' and ')}`;
}

/** The choice as the agent names it: `max duration_seconds`, `count`. */
function choiceWhat(choice: ReferenceChoice): string {
  return `${choice.op}${choice.by ? ` ${choice.by}` : ''}`;
}

/**
 * The choice computed from the visible items; when no item has every field it reads, it chooses
 * among the items that still have the `take` field (the first one: it cannot rank them).
 * `undefined` when nothing is left to choose from.
 */
function chooseVisible(
  choice: ReferenceChoice,
  items: readonly Item[],
): { value: string; note: string; sure: boolean } | undefined {
  const from = choiceCandidates(choice, items).length;
  const value = computeChoice(choice, items);
  const what = choiceWhat(choice);
  if (value !== undefined && from > 0) {
    return { value, note: `${what} over ${from} items I can see${filterNote(choice)}`, sure: true };
  }
  if (choice.take === undefined) return undefined;
  const take = choice.take;
  const rest = items.find((item) => item[take] !== undefined && choiceWhereHolds(choice, item));
  if (rest === undefined) return undefined;
  return {
    value: rest[take] as string,
    note: `\`${choice.by ?? take}\` is not in my context; took the first ${take} I can see${filterNote(choice)}`,
    sure: false,
  };
}

/** Conditions on fields the item still has hold (missing fields cannot be checked). */
function choiceWhereHolds(choice: ReferenceChoice, item: Item): boolean {
  const partial = Object.fromEntries(
    Object.entries(choice.where ?? {}).filter(([f]) => item[f] !== undefined),
  );
  const probe: ReferenceChoice = { value: '', from: [], op: 'count', where: partial };
  return choiceCandidates(probe, [item]).length === 1;
}

/**
 * The items a choice is computed over: the records of the lists it was read from (results of the
 * same calls, or summary facts from them), not every record in view.
 */
function choiceItems(plan: ReferencePlan, choice: ReferenceChoice, seen: Seen): Item[] {
  const calls = new Set(
    choice.from.flatMap((i) => (plan.steps[i] ? [seen.stepCall(plan.steps[i]).call] : [])),
  );
  const pinned = pinnedWhere(plan, choice, seen);
  return seen
    .records()
    .filter(
      (r) =>
        // Choices are computed over JSON items; a plain-text line is no item.
        r.plain !== true &&
        ((r.source.kind === 'observation' && calls.has(r.source.call)) ||
          (r.source.kind === 'summary' && (r.source.call === null || calls.has(r.source.call)))),
    )
    .map((r) => withPinned(r, pinned));
}

/**
 * A value the step computes from a list (a declared choice), as the agent can compute it from the
 * items it can see; what blocks it (pages it must read again, nothing to compute from); and its
 * reasoning.
 */
export function viewChoice(
  plan: ReferencePlan,
  index: number,
  choice: ReferenceChoice,
  seen: Seen,
  guess: (need: ReferenceNeed) => string,
): { value: string; note: string; blockers: Blocker[] } {
  const got = chooseVisible(choice, choiceItems(plan, choice, seen));
  const source = choice.from[0];
  // Pages of the list it knows it read but cannot see (whole) now: it reads them again.
  const blockers = listGaps(plan, choice, seen).filter((gap) => gap.fromStep < index);
  if ((got === undefined || !got.sure) && source !== undefined && source >= 0 && source < index) {
    blockers.push({
      fromStep: source,
      why: `nothing to compute ${choice.op} \`${choice.by ?? choice.take ?? ''}\` from`,
    });
  }
  if (got !== undefined) return { value: got.value, note: got.note, blockers };
  // Nothing to compute it from: the value is made up (the plan's own value is not the agent's to
  // read), as a value it cannot find is.
  const value = guess({
    value: choice.value,
    fromStep: source ?? -1,
    field: choice.take ?? choice.by,
  });
  const note = `nothing to compute ${choiceWhat(choice)} from; made up ${clip(value, 40)}`;
  return { value, note, blockers };
}

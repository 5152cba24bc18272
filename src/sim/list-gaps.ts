import {
  choiceFields,
  type Item,
  type ReferenceChoice,
  type ReferencePlan,
} from '../bench/index.js';
import type { VisibleRecord } from './records.js';
import type { Seen as FullSeen } from './seen.js';

/**
 * Re-paging (issue 22): before it computes a value over a list (the largest, the newest, a sum),
 * an agent checks that it can see the whole list, and reads again what it knows it read but can
 * no longer see. This is what a real agent does when its context shows it paged further than the
 * items it still has: it sees its own call of page 3 but not pages 0-2 (FIFO dropped them), a
 * response says `has_more: true` or `total_pages: 4` and the next page is gone, a summary lists
 * contacts without the dates it compares on, or a compressed page lost the field.
 *
 * It reads only its prompt: which pages exist it learns from its own calls, from the pagination
 * fields of the responses and summary lines it sees, and from `page_index` 0 (every list starts
 * there); the plan only says which call reads page k (the intent "page through this list").
 * A summary that lists items of the call is believed for the pages it names (or for every page,
 * when it names none): the agent cannot tell a silently shortened summary from a short list.
 */

/** A page of the list the agent must read again: the plan step that reads it and why. */
export type ListGap = { fromStep: number; why: string };

type Seen = Pick<FullSeen, 'records' | 'actions' | 'stepCall'>;

/** Arguments that say which page of a list to read: never data copied from a response. */
export const PAGE_ARGS = new Set(['page_index', 'page_limit']);

export function pageOf(args: Record<string, unknown>): number {
  const p = Number(args.page_index ?? 0);
  return Number.isInteger(p) && p >= 0 ? p : 0;
}

/** Same list: the same arguments apart from the page and the credentials. */
export function sameList(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (PAGE_ARGS.has(k) || /token|password/i.test(k)) continue;
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) return false;
  }
  return true;
}

/** Whether an item fails a condition on a field it shows (then it needs nothing more). */
function excluded(choice: ReferenceChoice, item: Item): boolean {
  for (const [f, cond] of Object.entries(choice.where ?? {})) {
    const v = item[f];
    if (v === undefined) continue;
    if (typeof cond === 'string' || typeof cond === 'number') {
      if (v.trim().toLowerCase() !== String(cond).trim().toLowerCase()) return true;
    } else if ('prefix' in cond) {
      if (!v.startsWith(cond.prefix)) return true;
    }
  }
  return false;
}

/** The choice's fields the item lacks (none when a condition it shows rules it out). */
function lacking(choice: ReferenceChoice, item: Item): string[] {
  if (excluded(choice, item)) return [];
  return choiceFields(choice).filter((f) => item[f] === undefined);
}

/**
 * Conditions of the choice that the list's own call pins (`show_orders(status=delivered)` for
 * "my delivered orders"): every plan call of that API passes the field with the condition's value,
 * so the agent, which chose those arguments, knows every item it read there meets it even when
 * the field is not shown (a summary line without `status`).
 */
export function pinnedWhere(
  plan: ReferencePlan,
  choice: ReferenceChoice,
  seen: Pick<Seen, 'stepCall'>,
): Item {
  const calls = new Set(
    choice.from.flatMap((i) => (plan.steps[i] ? [seen.stepCall(plan.steps[i]).call] : [])),
  );
  const steps = plan.steps.map((s) => seen.stepCall(s)).filter((c) => calls.has(c.call));
  const pinned: Item = {};
  for (const [f, cond] of Object.entries(choice.where ?? {})) {
    if (typeof cond !== 'string' && typeof cond !== 'number') continue;
    const value = String(cond).trim().toLowerCase();
    if (
      steps.length > 0 &&
      steps.every(
        (c) =>
          String(c.args[f] ?? '')
            .trim()
            .toLowerCase() === value,
      )
    ) {
      pinned[f] = String(cond);
    }
  }
  return pinned;
}

/**
 * A record with the fields its list's call pins, where it does not show them: only an item of the
 * response's own list, read from a call or a summary line that names it. The response itself, an
 * error it answered (`error=…` whose `status` was left out) or an order's products are no items.
 */
export function withPinned(record: VisibleRecord, pinned: Item): Item {
  const item = record.fields;
  const s = record.source;
  const named = s.kind === 'observation' || (s.kind === 'summary' && s.call !== null);
  if (!named || record.list?.depth !== 0) return item;
  const missing = Object.keys(pinned).filter((f) => item[f] === undefined);
  return missing.length === 0
    ? item
    : { ...item, ...Object.fromEntries(missing.map((f) => [f, pinned[f]!])) };
}

/** Response fields that say where in a list a page is, not what it holds. */
const PAGING = ['page_index', 'page_limit', 'total_items', 'total_pages', 'has_more'];

/**
 * A summary line the agent reads as an item of the list: it shows a field the choice filters on,
 * or (no filter) it is not a line about the paging itself.
 */
function summaryItem(choice: ReferenceChoice, item: Item): boolean {
  const where = Object.keys(choice.where ?? {});
  if (where.length > 0) return where.some((f) => item[f] !== undefined);
  return !PAGING.some((f) => item[f] !== undefined);
}

/** Fields by which the agent recognises the same record in two places (a file by its path). */
const IDENTIFYING = ['id', 'name', 'title', 'path', 'email', 'phone_number'];

const identity = (item: Item, choice: ReferenceChoice): string[] =>
  [...new Set([...IDENTIFYING, ...(choice.take ? [choice.take] : [])])].flatMap((k) =>
    item[k] === undefined ? [] : [`${k}=${item[k]}`],
  );

/** A page in view as a response. */
type Page = {
  message: number;
  /** Every item is there with every field the choice reads. */
  whole: boolean;
  /** Items of the response's own list, and how many its paging fields say it holds. */
  count: number;
  expected?: number;
};

/** A page with fewer items than its own paging fields say: a compressor cut it short. */
const isCut = (p: Page) => p.expected !== undefined && p.count < p.expected;

/**
 * How many items a page holds by its own paging fields: `page_limit`, or what is left of
 * `total_items` on the last page; `undefined` when the response does not show them.
 */
export function expectedItems(
  fields: Readonly<Record<string, unknown>>,
  page: number,
  args: Record<string, unknown>,
): number | undefined {
  const limit = Number(fields.page_limit ?? args.page_limit);
  const total = Number(fields.total_items);
  if (!Number.isInteger(limit) || limit <= 0 || !Number.isInteger(total)) return undefined;
  return Math.max(0, Math.min(limit, total - page * limit));
}

/** What the agent's context shows of one list: its pages, and its items in a summary. */
type ListView = {
  /** Pages the agent knows exist. */
  known: Set<number>;
  /** Pages in view as responses (the newest of each), and whether their items are whole. */
  pages: Map<number, Page>;
  /** Items in view with every field the choice reads. */
  complete: Item[];
  /** Pages a summary names, and the list's items it holds. */
  summaryPages: Set<number>;
  summaryItems: Item[];
  /** The largest `total_items` the list's responses or summary lines show (0: none). */
  totalItems: number;
};

function readList(
  choice: ReferenceChoice,
  seen: Seen,
  call: string,
  listArgs: Record<string, unknown>,
  pinned: Item,
): ListView {
  const known = new Set<number>([0]);
  const upTo = (k: number) => {
    for (let j = 0; j <= k; j++) known.add(j);
  };
  let totalItems = 0;
  const paging = (fields: Item, page: number | undefined) => {
    const items = Number(fields.total_items);
    if (Number.isInteger(items) && items > totalItems) totalItems = items;
    if (page !== undefined && fields.has_more === 'true') upTo(page + 1);
    const total = Number(fields.total_pages);
    if (Number.isInteger(total) && total > 0) upTo(total - 1);
  };
  for (const a of seen.actions()) {
    if (a.call === call && sameList(a.args, listArgs)) upTo(pageOf(a.args));
  }

  const pages: ListView['pages'] = new Map();
  const complete: Item[] = [];
  const summaryPages = new Set<number>();
  const summaryItems: Item[] = [];
  for (const record of seen.records()) {
    const s = record.source;
    const r = { ...record, fields: withPinned(record, pinned) };
    if (s.kind === 'observation' && s.call === call && sameList(s.args, listArgs)) {
      const page = pageOf(s.args);
      upTo(page);
      // Plain text where the page was (a masking placeholder, a cut answer) is no page read.
      if (r.plain === true) continue;
      // An error answered instead of the page (a refused token): the page was not read.
      if (r.list === undefined && r.fields.error !== undefined && Number(r.fields.status) >= 400)
        continue;
      let p = pages.get(page);
      if (p === undefined || p.message < s.message)
        pages.set(page, (p = { message: s.message, whole: true, count: 0 }));
      if (p.message !== s.message) continue;
      if (r.list === undefined) {
        paging(r.fields, page);
        p.expected ??= expectedItems(r.fields, page, s.args);
      }
      // Only the response's own list (a file's `shared_with` people are not files).
      else if (r.list.depth > 0) continue;
      else {
        p.count++;
        if (lacking(choice, r.fields).length > 0) p.whole = false;
        else complete.push(r.fields);
      }
    } else if (s.kind === 'summary' && (s.call === null || s.call === call)) {
      // A line the summary places inside an item (a song's album, a file's `shared_with`
      // people) is not an item of the list.
      if (r.inItem === true && (r.list === undefined || r.list.depth > 0)) continue;
      if (PAGING.some((f) => r.fields[f] !== undefined)) {
        // A paging line without its page index still tells how many pages there are.
        const page = r.fields.page_index === undefined ? undefined : pageOf(r.fields);
        if (page !== undefined) {
          upTo(page);
          summaryPages.add(page);
        }
        paging(r.fields, page);
      } else if (summaryItem(choice, r.fields)) {
        summaryItems.push(r.fields);
        if (lacking(choice, r.fields).length === 0) complete.push(r.fields);
      }
    }
  }

  // A response with fewer items than its own paging fields say (`page_limit: 20`, 10 songs) was
  // cut short by a compressor: the agent cannot compute over it as a whole page.
  for (const p of pages.values()) if (isCut(p)) p.whole = false;
  return { known, pages, complete, summaryPages, summaryItems, totalItems };
}

/**
 * The pages of the list a choice is computed over that the agent knows it must read again,
 * lowest first; empty when it can see the whole list as far as its context tells.
 */
export function listGaps(plan: ReferencePlan, choice: ReferenceChoice, seen: Seen): ListGap[] {
  const from = choice.from.filter((i) => plan.steps[i] !== undefined);
  const first = from[0];
  if (first === undefined) return [];
  const head = plan.steps[first]!;
  const { call, args: listArgs } = seen.stepCall(head);
  const stepOfPage = new Map<number, number>();
  for (const i of from) {
    const s = plan.steps[i]!;
    const c = seen.stepCall(s);
    if (c.call === call && sameList(c.args, listArgs)) stepOfPage.set(pageOf(c.args), i);
  }

  const { known, pages, complete, summaryPages, summaryItems, totalItems } = readList(
    choice,
    seen,
    call,
    listArgs,
    pinnedWhere(plan, choice, seen),
  );
  const gaps: ListGap[] = [];
  const add = (page: number, why: string) => {
    const step = stepOfPage.get(page);
    if (step !== undefined && !gaps.some((g) => g.fromStep === step))
      gaps.push({ fromStep: step, why });
  };
  const wholeInView = [...known].every((k) => pages.get(k)?.whole === true);
  if (wholeInView) return [];
  // It counts what it can see against the list's own count: 22 delivered orders with a total each
  // in view, and the list says `total_items: 22`, is the whole list, whichever pages the summary
  // names.
  const record = (i: Item) => identity(i, choice).join('|') || JSON.stringify(i);
  const distinct = new Set(complete.map(record));
  if (totalItems > 0 && distinct.size >= totalItems) return [];
  // The same count the other way: fewer items in view than the list reports, whole or not,
  // means a summary that holds some of them was cut short (10 delivered orders in view,
  // `total_items: 13`), so it no longer vouches for any page it does not show as a response.
  // (Items in view without a field the choice reads are the next rule's: they name the field.)
  const inView = new Set([...distinct, ...summaryItems.map(record)]);
  const short = totalItems > 0 && inView.size < totalItems;

  // A summary that lists items of the call but names no page is believed for every page; one
  // that names a page but holds no line the agent can read as an item of this list (the lines
  // lost the field it filters by: are these the neighbors?) does not show that page.
  const summaryCovers = (k: number) =>
    !short && summaryItems.length > 0 && (summaryPages.has(k) || summaryPages.size === 0);
  const sorted = [...known].sort((a, b) => a - b);
  const highest = sorted[sorted.length - 1] ?? 0;
  for (const k of sorted) {
    const p = pages.get(k);
    if (p === undefined && !summaryCovers(k)) {
      const why = short
        ? `I can see ${inView.size} of its ${totalItems} items`
        : `I paged up to page ${highest}`;
      add(k, `page ${k} of ${call} is not in my context (${why})`);
    } else if (p !== undefined && !p.whole) {
      add(k, partialPage(call, choice, k, p));
    }
  }
  // Summary items without a field the choice reads, not seen whole in a response: the agent
  // cannot tell which page they came from, so it reads again the pages it cannot see whole
  //.
  const seenWhole = new Set(complete.flatMap((i) => identity(i, choice)));
  const blind = summaryItems.filter(
    (i) => lacking(choice, i).length > 0 && !identity(i, choice).some((v) => seenWhole.has(v)),
  );
  if (blind.length > 0) {
    const missing = [...new Set(blind.flatMap((i) => lacking(choice, i)))];
    const why = `${blind.length} ${call} items in my summary have no ${missing.map((f) => `\`${f}\``).join(', ')}`;
    for (const k of sorted) if (pages.get(k)?.whole !== true) add(k, why);
  }
  return gaps.sort((a, b) => a.fromStep - b.fromStep);
}

/** Why a page in view is not whole: a cut list, or items without a field the choice reads. */
function partialPage(call: string, choice: ReferenceChoice, k: number, p: Page): string {
  if (isCut(p)) return `page ${k} of ${call} shows ${p.count} of its ${p.expected} items`;
  return `some ${call} items of page ${k} have no ${fieldsText(choice)} in my context`;
}

function fieldsText(choice: ReferenceChoice): string {
  return choiceFields(choice)
    .map((f) => `\`${f}\``)
    .join(' or ');
}

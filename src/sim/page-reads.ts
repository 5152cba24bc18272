import type { ReferencePlan } from '../bench/index.js';
import { pageOf, sameList } from './list-gaps.js';
import type { VisibleRecord } from './records.js';
import type { Seen as FullSeen } from './seen.js';

/**
 * How many pages of a list the agent reads (issue 61): it reads page k > 0 only when what it sees
 * says the list goes on, never because its plan has a step for it. The plan says which call reads
 * page k (the intent "page through this list"); whether page k exists the agent learns as an
 * agent does: from the previous page's `has_more`, a `total_pages` or `total_items` a response or
 * summary line shows, or else from the previous page itself: a page holding as many items as the
 * `page_limit` it asked for may have a next one, a shorter page was the last (apptown's prompt:
 * "look at has_more and fetch further pages"). A compressor that drops the paging fields and
 * shortens the page makes it stop early. With nothing of the list in view it pages on.
 */

type Seen = Pick<FullSeen, 'records' | 'stepCall'>;

/** Whether the agent reads the page step `index` asks for, and what its reasoning says why. */
export type PageRead =
  | { read: true; note?: string }
  /** `to`: the first plan step after the pages of this list it no longer reads. */
  | { read: false; why: string; to: number };

/** A record of the list's own response (its top level) or a summary line about its paging. */
function pagingRecords(seen: Seen, call: string, args: Record<string, unknown>) {
  const out: { fields: VisibleRecord['fields']; page: number | undefined }[] = [];
  for (const r of seen.records()) {
    const s = r.source;
    if (r.list !== undefined || r.plain === true) continue;
    if (s.kind === 'observation' && s.call === call && sameList(s.args, args)) {
      if (r.fields.error !== undefined && Number(r.fields.status) >= 400) continue;
      out.push({ fields: r.fields, page: pageOf(s.args) });
    } else if (s.kind === 'summary' && s.call === call) {
      const p = Number(r.fields.page_index);
      out.push({ fields: r.fields, page: Number.isInteger(p) && p >= 0 ? p : undefined });
    }
  }
  return out;
}

/** Items of the newest response in view of page `page` of the list, or undefined if none is. */
function itemsOnPage(seen: Seen, call: string, args: Record<string, unknown>, page: number) {
  let message = -1;
  let count = 0;
  for (const r of seen.records()) {
    const s = r.source;
    if (s.kind !== 'observation' || s.call !== call || !sameList(s.args, args)) continue;
    if (pageOf(s.args) !== page || r.plain === true) continue;
    if (s.message > message) {
      message = s.message;
      count = 0;
    }
    if (s.message === message && r.list?.depth === 0) count++;
  }
  return message === -1 ? undefined : count;
}

/** What the agent's context says about whether page `page` exists; undefined: nothing. */
function pageExists(
  seen: Seen,
  call: string,
  args: Record<string, unknown>,
  page: number,
): { exists: boolean; why: string } | undefined {
  const records = pagingRecords(seen, call, args);
  const limit = Number(args.page_limit);
  let hasMore: { exists: boolean; why: string } | undefined;
  let total: { exists: boolean; why: string } | undefined;
  for (const { fields, page: at } of records) {
    if (at === page - 1 && (fields.has_more === 'true' || fields.has_more === 'false')) {
      hasMore = {
        exists: fields.has_more === 'true',
        why: `\`has_more\` was ${fields.has_more} on page ${page - 1}`,
      };
    }
    const pages = Number(fields.total_pages);
    if (total === undefined && Number.isInteger(pages) && pages > 0) {
      total = { exists: pages > page, why: `\`total_pages\` is ${fields.total_pages}` };
    }
    const items = Number(fields.total_items);
    const per = Number(fields.page_limit ?? limit);
    if (total === undefined && Number.isInteger(items) && Number.isInteger(per) && per > 0) {
      total = { exists: items > page * per, why: `\`total_items\` is ${fields.total_items}` };
    }
  }
  if (hasMore !== undefined || total !== undefined) return hasMore ?? total;
  const count = itemsOnPage(seen, call, args, page - 1);
  if (count === undefined || !Number.isInteger(limit) || limit <= 0) return undefined;
  return count >= limit
    ? { exists: true, why: `page ${page - 1} was full (${count} items)` }
    : {
        exists: false,
        why: `page ${page - 1} held ${count} items, fewer than the ${limit} I asked for`,
      };
}

/**
 * Whether the agent reads the page that plan step `index` asks for. Steps that read no page, or
 * page 0, are always read; so is a page whose existence nothing in view tells.
 */
export function pageRead(plan: ReferencePlan, index: number, seen: Seen): PageRead {
  const step = plan.steps[index];
  if (step === undefined || step.tool !== 'call_api') return { read: true };
  const { call, args } = seen.stepCall(step);
  if (args.page_index === undefined) return { read: true };
  const page = pageOf(args);
  if (page === 0) return { read: true };
  const known = pageExists(seen, call, args, page);
  if (known === undefined) return { read: true };
  if (known.exists) return { read: true, note: known.why };
  // The list has ended as far as it can see: it reads none of its further pages.
  let to = index + 1;
  while (to < plan.steps.length) {
    const next = plan.steps[to]!;
    if (next.tool !== 'call_api') break;
    const c = seen.stepCall(next);
    if (c.call !== call || !sameList(c.args, args) || pageOf(c.args) <= page) break;
    to++;
  }
  return { read: false, why: `${call} has no page ${page}: ${known.why}`, to };
}

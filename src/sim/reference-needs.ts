import type { Item, NeedSelect, ReferenceNeed, ReferencePlan } from '../bench/index.js';
import { refusedCall } from './error-reply.js';
import type { VisibleRecord } from './records.js';
import type { Seen } from './seen.js';
import { clip, containsToken } from './text.js';

type Need = ReferenceNeed;

/** A blocker of a plan step: what is missing and which earlier step would give it back. */
export type Blocker = { fromStep: number; why: string };

/**
 * How the agent finds a value it needs among what it sees (issue 22). `found`: a record it can
 * identify holds it; `unsure`: records hold the field but none shows the selector, so it can only
 * take one of them (the first); `missing`: no visible record has the field.
 */
export type Resolution =
  | { kind: 'found'; value: string; record: Item; why: string }
  | { kind: 'unsure'; value: string; record: Item; why: string }
  | { kind: 'missing'; why: string }
  /**
   * The value is only known from a response (a file name of a listing), and the response in view
   * does not show it: the agent cannot tell that anything is missing, so it has nothing to do.
   */
  | { kind: 'unseen'; why: string };

function newest<T>(list: readonly T[]): T | undefined {
  return list[list.length - 1];
}

function matches(text: string | undefined, select: { value: string; prefix: boolean }): boolean {
  if (text === undefined) return false;
  return select.prefix ? text.startsWith(select.value) : text === select.value;
}

/**
 * Whether the plan works through the list of `need` item by item: several steps each take an
 * item of it (one step taking several items, a list in an email, reads them by position).
 */
function iterates(plan: ReferencePlan, need: Need): boolean {
  if (need.select?.kind !== 'index') return false;
  const list = need.select.list;
  let steps = 0;
  for (const step of plan.steps) {
    const takes = step.needs.some(
      (n) =>
        n.fromStep === need.fromStep &&
        n.field === need.field &&
        n.select?.kind === 'index' &&
        n.select.list === list,
    );
    if (takes) steps++;
  }
  return steps > 1;
}

function fromProducer(r: VisibleRecord, call: string): boolean {
  return (
    (r.source.kind === 'observation' && r.source.call === call) ||
    (r.source.kind === 'summary' && (r.source.call === null || r.source.call === call))
  );
}

/** What one need's resolution reads: the producer's call and the records holding the field. */
type NeedScope = {
  plan: ReferencePlan;
  need: Need;
  seen: Seen;
  field: string;
  call: string;
  producerArgs: Record<string, unknown>;
  withField: VisibleRecord[];
};

export function resolveNeed(plan: ReferencePlan, need: Need, seen: Seen): Resolution {
  const producer = plan.steps[need.fromStep];
  const field = need.field;
  const records = seen.records();
  if (producer === undefined || field === undefined || need.select === undefined) {
    // A value read out of a response with no path (a declared read: an amount in an email's
    // body). The agent reads it where it was told it is: in what the call that returned it
    // answered, or in a summary of it; it never searches its context for the value (issue 61).
    const from = producer === undefined ? undefined : seen.stepCall(producer).call;
    const readable = (r: VisibleRecord) =>
      from === undefined ? r.source.kind !== 'action' : fromProducer(r, from);
    const hit = newest(
      records.filter(
        (r) => readable(r) && Object.values(r.fields).some((v) => containsToken(v, need.value)),
      ),
    );
    return hit
      ? { kind: 'found', value: need.value, record: hit.fields, why: 'read' }
      : { kind: 'missing', why: 'a value I read earlier is not in my context' };
  }
  const { call, args: producerArgs } = seen.stepCall(producer);
  const withField = records.filter(
    (r) => r.source.kind !== 'action' && r.fields[field] !== undefined,
  );
  const scope: NeedScope = { plan, need, seen, field, call, producerArgs, withField };
  const select = need.select;
  if (select.kind === 'match') return resolveMatch(scope, select);
  if (select.kind === 'root') return resolveRoot(scope);
  return resolveIndex(scope, select);
}

/** The values a record shows for a selector's field: its own, or its nested items' (`participants.name`). */
function valuesOf(r: VisibleRecord, field: string): readonly string[] {
  if (!field.includes('.')) return r.fields[field] === undefined ? [] : [r.fields[field]!];
  return r.nested?.[field] ?? [];
}

/** The key an agent names when a selector's field is missing: `participants` for `participants.name`. */
const shownKey = (field: string) => field.split('.')[0] ?? field;

/**
 * "The item whose `select.field` is X" (and whose other fields meet `select.and`): the newest such
 * record, else one without a selector field. When only a response states X (`need.in`
 * observation: the file names of a listing), the agent knows X only by seeing it: it never names
 * X while it cannot see it, and with the response in view but X not in it, it has no item left.
 */
function resolveMatch(
  { need, seen, field, call, withField }: NeedScope,
  select: Extract<NeedSelect, { kind: 'match' }>,
): Resolution {
  const conditions = [select, ...(select.and ?? [])];
  const said = conditions.map((c) => `${c.field}=${clip(c.value, 40)}`).join(', ');
  const hit = newest(
    withField.filter((r) =>
      conditions.every((c) => valuesOf(r, c.field).some((v) => matches(v, c))),
    ),
  );
  if (hit) {
    return { kind: 'found', value: hit.fields[field]!, record: hit.fields, why: said };
  }
  const lacking = (r: VisibleRecord) => conditions.filter((c) => valuesOf(r, c.field).length === 0);
  // What it can check narrows it down: a record that meets every condition it shows (Markus's
  // thread, its subject not shown) before one that shows none of them.
  const meets = (r: VisibleRecord) =>
    conditions.every((c) => {
      const values = valuesOf(r, c.field);
      return values.length === 0 || values.some((v) => matches(v, c));
    });
  const unsure = withField.filter(
    (r) => fromProducer(r, call) && lacking(r).length > 0 && meets(r),
  );
  const blind = unsure.find((r) => lacking(r).length < conditions.length) ?? unsure[0];
  if (blind) {
    const keys = [...new Set(lacking(blind).map((c) => shownKey(c.field)))];
    return {
      kind: 'unsure',
      value: blind.fields[field]!,
      record: blind.fields,
      why: `no ${keys.map((k) => `\`${k}\``).join(', ')} in my context; took the first ${field} I can see`,
    };
  }
  const keys = [...new Set(conditions.map((c) => `\`${shownKey(c.field)}\``))].join(', ');
  if (need.in === 'observation') {
    const shown = seen
      .records()
      .some((r) => r.source.kind === 'observation' && r.source.call === call && r.plain !== true);
    return shown
      ? { kind: 'unseen', why: `no further ${call} item to handle in my context` }
      : { kind: 'missing', why: `the ${call} result with its ${keys} is not in my context` };
  }
  return { kind: 'missing', why: `no item with ${said} (${keys}) and its \`${field}\`` };
}

/**
 * A field of a call's response itself: the first record (its top level) of the newest result of
 * that call, else its own earlier call of the same app passing that field, else a summary line.
 */
function resolveRoot({ seen, field, call, withField }: NeedScope): Resolution {
  const results = withField.filter(
    (r) => r.source.kind === 'observation' && r.source.call === call && r.list === undefined,
  );
  const last = newest(results)?.source;
  const own =
    last?.kind === 'observation'
      ? results.find((r) => r.source.kind === 'observation' && r.source.message === last.message)
      : undefined;
  const app = call.split('.')[0] ?? call;
  // Not from a call it sees refused (a mistyped token is not copied on).
  const refused = (message: number) => refusedCall(seen, message);
  const action = newest(
    seen
      .records()
      .filter(
        (r) =>
          r.source.kind === 'action' &&
          r.source.call.startsWith(`${app}.`) &&
          r.fields[field] !== undefined &&
          !refused(r.source.message),
      ),
  );
  // A line the summary places inside the response (its shipping address) is not the response.
  const summary = newest(
    withField.filter(
      (r) => r.source.kind === 'summary' && fromProducer(r, call) && r.inItem !== true,
    ),
  );
  const hit = own ?? action ?? summary;
  return hit
    ? { kind: 'found', value: hit.fields[field]!, record: hit.fields, why: field }
    : { kind: 'missing', why: `the \`${field}\` from ${call} is not in my context` };
}

/**
 * An item of a list: the agent works through the newest copy of the list it can see, taking the
 * first item it cannot see it has handled already (or, reading one item, the one at its place).
 * A call it sees refused (a slipped token) did not handle its item: that item is still next.
 */
function resolveIndex(
  { plan, need, seen, field, call, producerArgs }: NeedScope,
  select: { list: string; index: number },
): Resolution {
  const loop = iterates(plan, need);
  const handled = new Set<string>();
  if (loop && need.arg !== undefined) {
    for (const a of seen.actions()) {
      const v = a.args[need.arg];
      if (refusedCall(seen, a.message)) continue;
      if (typeof v === 'string' || typeof v === 'number') handled.add(String(v));
    }
    // A summary's progress lines name what was done (`- Done: music.add_song_to_queue song_id=7`).
    const arg = need.arg;
    for (const line of seen.userText().split('\n')) {
      if (!line.startsWith('- Done: ')) continue;
      for (const m of line.matchAll(/(?:^|\s)([\w.]+)=(\S+)/g))
        if (m[1] === arg) handled.add(m[2]!);
    }
  }
  const listed = seen
    .records()
    .filter(
      (r) =>
        r.source.kind === 'observation' &&
        r.source.call === call &&
        r.list?.key === select.list &&
        r.source.args.page_index === producerArgs.page_index,
    );
  const latest = newest(listed)?.source;
  let pool: VisibleRecord[] =
    latest?.kind === 'observation'
      ? listed.filter((r) => r.source.kind === 'observation' && r.source.message === latest.message)
      : [];
  if (!pool.some((r) => r.fields[field] !== undefined)) {
    // A summary that says which lines are the list's items (`songs[0]: …`) is read that way: the
    // playlist itself and its songs' albums are not songs, also when the songs' lines lost the
    // field (then the song ids are missing, not the playlist's id to take instead).
    const summary = seen
      .records()
      .filter((r) => r.source.kind === 'summary' && fromProducer(r, call));
    const items = summary.filter((r) => r.list?.key === select.list && r.list.depth === 0);
    pool = items.length > 0 ? items : summary;
  }
  const candidates = pool.filter((r) => r.fields[field] !== undefined);
  const pick = loop
    ? candidates.find((r) => !handled.has(r.fields[field]!))
    : (candidates.find((r) => r.list?.position === select.index) ?? candidates[select.index]);
  if (pick === undefined) {
    return {
      kind: 'missing',
      why: `the \`${field}\` of ${select.list} item ${select.index + 1} is not in my context`,
    };
  }
  return {
    kind: 'found',
    value: pick.fields[field]!,
    record: pick.fields,
    why: loop
      ? `the next ${select.list} item I have not handled`
      : `${select.list} item ${select.index + 1}`,
  };
}

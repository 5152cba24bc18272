import {
  choiceCandidates,
  computeChoice,
  decideBranch,
  type Item,
  type ChoiceCondition,
  type NeedSelect,
  type ReferenceChoice,
  type ReferenceNeed,
  type ReferencePlan,
} from '../bench/index.js';
import { seededRandom, type Random } from '../seeded-random.js';
import type { AssistantMessage, ChatMessage } from '../llm/index.js';
import { listGaps, pagingNote, pinnedWhere, withPinned } from './list-gaps.js';
import {
  itemsOf,
  stepCallOf,
  visibleActions,
  visibleRecords,
  type VisibleRecord,
} from './records.js';
import { clip, containsToken } from './text.js';

/**
 * The simulated agent (ARCHITECTURE §6, issues 5 and 13): it follows the task's reference plan.
 * Before a step it checks that every fact the step copies from an earlier result appears
 * verbatim in the messages it was sent; a missing fact makes it re-issue the call that produced
 * it, and after `refetchLimit` failed re-fetches it guesses (a corrupted value) and the task
 * fails. A value the step computes from data (a declared choice: the largest file, a sum) is
 * computed from the items it can see, so a dropped field or a lost page makes it wrong; when no
 * item is left at all it re-fetches the list first. A seeded slip per task and plan step (the
 * same under every condition) makes one argument wrong: the same field's value in another visible
 * record of the same kind where there is one, else a mistyped value.
 *
 * The agent is a pure function of the request. Its progress through the plan is read back from
 * its own earlier reasoning, which is part of the messages (`Step 4 of 9: …`), so the same
 * request always gets the same answer: replays, reactive-compression retries and resumed
 * rollouts behave exactly like the first run, and no per-rollout state has to be kept or freed.
 */
export type SimAgentOptions = {
  seed: number;
  /** Failed re-fetches of a missing fact before guessing it (config `sim.refetch_limit`). */
  refetchLimit: number;
  /** Probability that a step is slipped: one argument is wrong (config `sim.noise`). */
  noise: number;
};

export type SimAgentContext = { taskId: string; step: number };

/** What the agent's reasoning line says about where it is in the plan. */
export type AgentMarker = {
  /** 0-based plan step the line is about. */
  step: number;
  /** Plan length when the line was written. */
  of: number;
  kind: 'do' | 'refetch' | 'guess';
  /** Re-fetches so far while blocked at `step`, by 0-based producer step (refetch lines). */
  attempts: Map<number, number>;
  /** 0-based steps whose results the agent gave up on (guess lines). */
  gaveUp: number[];
  /** `app.api` or tool name the line calls. */
  action: string;
};

const MARKER = /\bStep (\d+) of (\d+)\b/;
const MARKERS = /\bStep (\d+) of (\d+)\b/g;
const REFETCHING = 're-fetching it';
const GUESSING = 'guessing it';

type Need = ReferenceNeed;

/** What the agent was sent, read lazily: its records and its own calls. */
type Seen = {
  messages: readonly ChatMessage[];
  records(): VisibleRecord[];
  actions(): ReturnType<typeof visibleActions>;
  items(): Item[];
  /** The text of user messages (the task and any summary). */
  userText(): string;
};

function makeSeen(messages: readonly ChatMessage[]): Seen {
  let records: VisibleRecord[] | undefined;
  let actions: ReturnType<typeof visibleActions> | undefined;
  let items: Item[] | undefined;
  let user: string | undefined;
  const readRecords = () => (records ??= visibleRecords(messages));
  return {
    messages,
    records: readRecords,
    actions: () => (actions ??= visibleActions(messages)),
    items: () => (items ??= itemsOf(readRecords())),
    userText: () =>
      (user ??= messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .join('\n')),
  };
}

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
 * How the agent finds a value it needs among what it sees (issue 22). `found`: a record it can
 * identify holds it; `unsure`: records hold the field but none shows the selector, so it can only
 * take one of them (the first); `missing`: no visible record has the field.
 */
type Resolution =
  | { kind: 'found'; value: string; record: Item; why: string }
  | { kind: 'unsure'; value: string; record: Item; why: string }
  | { kind: 'missing'; why: string };

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

function resolveNeed(plan: ReferencePlan, need: Need, seen: Seen): Resolution {
  const producer = plan.steps[need.fromStep];
  const field = need.field;
  const records = seen.records();
  if (producer === undefined || field === undefined || need.select === undefined) {
    // A value read out of a response with no path (a declared read: an amount in an email's
    // body). The agent reads it where it was told it is: in what the call that returned it
    // answered, or in a summary of it; it never searches its context for the value (issue 61).
    const from = producer === undefined ? undefined : stepCallOf(producer).call;
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
  const { call, args: producerArgs } = stepCallOf(producer);
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
 * record, else one without a selector field.
 */
function resolveMatch(
  { field, call, withField }: NeedScope,
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

/** Whether the agent's call in message `message` is answered, in view, with an error. */
function refusedCall(seen: Seen, message: number): boolean {
  const reply = seen.messages[message + 1];
  return reply?.role === 'tool' && isErrorReply(reply);
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

/**
 * The items a choice is computed over: the records of the lists it was read from (results of the
 * same calls, or summary facts from them), not every record in view.
 */
function choiceItems(plan: ReferencePlan, choice: ReferenceChoice, seen: Seen): Item[] {
  const calls = new Set(
    choice.from.flatMap((i) => (plan.steps[i] ? [stepCallOf(plan.steps[i]).call] : [])),
  );
  const pinned = pinnedWhere(plan, choice);
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

/** The API documentation step a call relies on, when the plan reads it before. */
function docStep(plan: ReferencePlan, index: number): number | undefined {
  const step = plan.steps[index];
  if (step === undefined || step.tool !== 'call_api') return undefined;
  const { app, api } = step.args as { app?: unknown; api?: unknown };
  if (app === 'api_docs' || app === 'supervisor' || api === 'login') return undefined;
  for (let i = index - 1; i >= 0; i--) {
    const s = plan.steps[i]!;
    const a = s.args as { app?: unknown; api?: unknown; args?: Record<string, unknown> };
    if (
      a.app === 'api_docs' &&
      a.api === 'show_api_doc' &&
      a.args?.app_name === app &&
      a.args?.api_name === api
    ) {
      return i;
    }
  }
  return undefined;
}

/**
 * Whether the agent can see how to call `app.api`: its documentation, an earlier call of it of
 * its own, or a summary that names it.
 */
function knowsApi(seen: Seen, app: string, api: string): boolean {
  for (const r of seen.records()) {
    if (r.source.kind === 'observation' && r.source.call === 'api_docs.show_api_doc') {
      if (r.source.args.app_name === app && r.source.args.api_name === api) return true;
    }
  }
  if (seen.actions().some((a) => a.call === `${app}.${api}`)) return true;
  // A documentation result too short to hold a record (compressed to prose) still counts.
  for (const m of seen.messages) {
    if (m.role === 'tool' && /"?api_name"?\s*[:=]\s*"?/.test(m.content) && m.content.includes(api))
      return true;
  }
  return containsToken(seen.userText(), `${app}.${api}`) || containsToken(seen.userText(), api);
}

/** A blocker of a plan step: what is missing and which earlier step would give it back. */
type Blocker = { fromStep: number; why: string };

type StepView = {
  args: Record<string, unknown>;
  notes: string[];
  blockers: Blocker[];
};

/**
 * A value the step computes from a list (a declared choice), as the agent can compute it from the
 * items it can see; what blocks it (pages it must read again, nothing to compute from); and its
 * reasoning.
 */
function viewChoice(
  plan: ReferencePlan,
  index: number,
  choice: ReferenceChoice,
  seen: Seen,
  guess: (need: Need) => string,
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

/**
 * The step's arguments as the agent can fill them from what it sees, the notes its reasoning
 * gives, and what blocks it (missing or unidentifiable values, a decision field it cannot see, a
 * choice with nothing to choose from, the documentation of an API it cannot see).
 */
function viewStep(
  plan: ReferencePlan,
  index: number,
  seen: Seen,
  guess: (need: Need) => string,
  coin: () => boolean,
): StepView {
  const step = plan.steps[index]!;
  let args = step.args;
  const notes: string[] = [];
  const blockers: Blocker[] = [];
  const records = new Map<string, Item>();
  for (const need of step.needs) {
    if (need.fromStep < 0 || need.fromStep >= index) continue;
    const r = resolveNeed(plan, need, seen);
    let value: string;
    if (r.kind === 'missing') {
      blockers.push({ fromStep: need.fromStep, why: r.why });
      value = guess(need);
    } else {
      if (r.kind === 'unsure') blockers.push({ fromStep: need.fromStep, why: r.why });
      if (need.arg !== undefined) records.set(need.arg, r.record);
      if (r.kind === 'unsure' || need.select?.kind === 'match') notes.push(r.why);
      value = r.value;
    }
    if (value !== need.value) args = replaceValue(args, need.value, value);
  }
  for (const choice of step.choices ?? []) {
    const got = viewChoice(plan, index, choice, seen, guess);
    blockers.push(...got.blockers);
    notes.push(got.note);
    if (got.value !== choice.value) args = replaceValue(args, choice.value, got.value);
  }
  const paging = pagingNote(plan, index, seen);
  if (paging !== undefined) notes.push(paging);
  const d = step.decision;
  if (d !== undefined) {
    const record = records.get(d.arg);
    const text = record?.[d.field];
    let branch = text === undefined ? undefined : decideBranch(d, text);
    if (branch !== undefined) {
      notes.push(`${d.field}=${text}, so ${branch}`);
    } else {
      const need = step.needs.find((n) => n.arg === d.arg);
      if (need)
        blockers.push({
          fromStep: need.fromStep,
          why: `the \`${d.field}\` of that item is not in my context`,
        });
      branch = coin() ? d.then : d.else;
      notes.push(`\`${d.field}\` not in my context; chose ${branch}`);
    }
    if (step.tool === 'call_api') args = { ...args, api: branch };
  }
  const doc = docStep(plan, index);
  if (doc !== undefined) {
    const { app, api } = args as { app: string; api: string };
    const docArgs = (plan.steps[doc]!.args as { args?: Record<string, unknown> }).args;
    if (docArgs?.api_name === api && !knowsApi(seen, app, api)) {
      blockers.push({ fromStep: doc, why: `how to call ${app}.${api} is not in my context` });
    }
  }
  return { args, notes, blockers };
}

/** The next assistant message of a simulated rollout. */
export function simAgentTurn(
  plan: ReferencePlan,
  messages: readonly ChatMessage[],
  ctx: SimAgentContext,
  opts: SimAgentOptions,
): AssistantMessage {
  const n = plan.steps.length;
  const seen = makeSeen(messages);
  const guess = (need: Need) => guessValue(need, opts.seed, ctx.taskId);
  const views = new Map<number, StepView>();
  const view = (index: number): StepView => {
    let v = views.get(index);
    if (!v) {
      const coin = () => seededRandom(opts.seed, ctx.taskId, 'decide', index)() < 0.5;
      v = viewStep(plan, index, seen, guess, coin);
      views.set(index, v);
    }
    return v;
  };
  const choose = (at: Progress) => {
    const decision = decide(plan, view, at, opts.refetchLimit);
    const target = decision.kind === 'do' ? decision.index : decision.producer;
    let args = view(target).args;
    // Keyed by the plan step and the try, not the turn, so a slip hits the same step under every
    // condition, and a try after an error slips again only by its own draw.
    const retry = decision.kind === 'do' && decision.index === at.next ? at.failedTries : 0;
    if (opts.noise > 0 && decision.kind === 'do') {
      const key = retry === 0 ? [] : ['retry', retry];
      const random = seededRandom(opts.seed, ctx.taskId, 'slip', decision.index, ...key);
      if (random() < opts.noise) args = slip(args, random, seen.records());
    }
    return { decision, target, args, retry };
  };
  const at = progress(messages, n, opts.refetchLimit);
  let chosen = choose(at);
  // The very call that just failed is all it could try again (a guessed value, a refused
  // request): nothing to correct, so it moves on.
  if (chosen.retry > 0 && JSON.stringify(chosen.args) === at.failedCall) {
    chosen = choose({ ...at, next: at.next + 1, failedTries: 0, failedCall: undefined });
  }
  const { decision, target, args, retry } = chosen;
  const step = plan.steps[target]!;
  const { notes } = view(target);

  const action = describe(step.tool, args) + (notes.length > 0 ? ` (${notes.join('; ')})` : '');
  let content: string;
  if (decision.kind === 'refetch') {
    const so = [...decision.attempts].map(([p, a]) => `step ${p + 1} ×${a}`).join(', ');
    content =
      `Step ${decision.index + 1} of ${n} needs a value from step ${decision.producer + 1} that ` +
      `is not in my context (${decision.why}); ${REFETCHING} (re-fetches so far: ${so}): calling ${action}.`;
  } else if (decision.guessed.length > 0) {
    const from = [...new Set(decision.guessed.map((g) => g.fromStep + 1))];
    content =
      `Step ${decision.index + 1} of ${n}: a value from step ${from.join(', ')} is still not in my ` +
      `context after ${opts.refetchLimit} re-fetches (${decision.guessed[0]!.why}); ${GUESSING} ` +
      `(gave up on step ${from.join(', ')}). Calling ${action}.`;
  } else if (retry > 0) {
    content = `Step ${decision.index + 1} of ${n}: my last call returned an error; trying again: calling ${action}.`;
  } else {
    content = `Step ${decision.index + 1} of ${n}: calling ${action}.`;
  }
  return {
    role: 'assistant',
    content,
    tool_calls: [
      {
        id: `call_${ctx.step}`,
        type: 'function',
        function: { name: step.tool, arguments: JSON.stringify(args) },
      },
    ],
  };
}

/** Reads a reasoning line written by `simAgentTurn`; `undefined` for any other text. */
export function parseAgentMarker(content: string): AgentMarker | undefined {
  const m = MARKER.exec(content);
  if (!m) return undefined;
  const attempts = new Map<number, number>();
  const refetch = content.includes(REFETCHING);
  if (refetch) {
    const list = /re-fetches so far: ([^)]*)\)/.exec(content)?.[1] ?? '';
    for (const a of list.matchAll(/step (\d+) ×(\d+)/g)) {
      attempts.set(Number(a[1]) - 1, Number(a[2]));
    }
  }
  const action = /calling ([^\s.,]+(?:\.[^\s.,]+)?)/i.exec(content)?.[1] ?? '';
  const guess = !refetch && content.includes(GUESSING);
  const gaveUp = guess
    ? [...(/gave up on step ([\d, ]+)\)/.exec(content)?.[1] ?? '').matchAll(/\d+/g)].map(
        (g) => Number(g[0]) - 1,
      )
    : [];
  return {
    step: Number(m[1]) - 1,
    of: Number(m[2]),
    kind: refetch ? 'refetch' : guess ? 'guess' : 'do',
    attempts,
    gaveUp,
    action,
  };
}

type Progress = {
  next: number;
  attempts: Map<number, number>;
  /** Steps whose results are lost for good: given up on, or run with a guessed value. */
  gaveUp: Set<number>;
  /** Tries of `next` that the agent can see failed with an error (0: a first try). */
  failedTries: number;
  /** The arguments of the newest of those failed tries. */
  failedCall?: string | undefined;
};

/**
 * isErrorResult per message object, remembered (issue #28): every step reads every tool result of
 * its prompt again, and a result holding `"error"` was parsed whole each time. The content is
 * compared on every hit.
 */
const errorReplies = new WeakMap<ChatMessage, { content: string; error: boolean }>();

function isErrorReply(m: ChatMessage & { content: string }): boolean {
  const hit = errorReplies.get(m);
  if (hit !== undefined && hit.content === m.content) return hit.error;
  const error = isErrorResult(m.content);
  errorReplies.set(m, { content: m.content, error });
  return error;
}

/**
 * Whether a tool result is an error the agent can read (`{"status": 401, "error": "…"}`, as
 * apptown answers a bad token, an unknown id or a missing argument).
 */
export function isErrorResult(content: string): boolean {
  if (!content.includes('"error"')) return false;
  try {
    const body = JSON.parse(content) as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
    const { status, error } = body as { status?: unknown; error?: unknown };
    return typeof status === 'number' && status >= 400 && typeof error === 'string';
  } catch {
    return false;
  }
}

/**
 * Where the rollout stands: from the newest reasoning line the agent can still see, or, when a
 * history compression folded all of them away, from the highest `Step k of n` in a summary. A
 * step whose call it sees answered with an error is not done: it tries it again, at most `limit`
 * times in a row (an LLM agent reads the error and corrects the call, seed 002's ReAct loop).
 */
function progress(messages: readonly ChatMessage[], n: number, limit: number): Progress {
  const markers: { marker: AgentMarker; failed: boolean; args: string }[] = [];
  const failedCalls = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool' && isErrorReply(m)) failedCalls.add(m.tool_call_id);
  }
  for (const m of messages) {
    if (m.role !== 'assistant' || m.content === null) continue;
    const marker = parseAgentMarker(m.content);
    const id = m.tool_calls?.[0]?.id;
    if (marker && marker.of === n) {
      const args = m.tool_calls?.[0]?.function.arguments ?? '';
      markers.push({ marker, failed: id !== undefined && failedCalls.has(id), args });
    }
  }
  const gaveUp = new Set<number>();
  for (const { marker } of markers) {
    if (marker.kind !== 'guess') continue;
    gaveUp.add(marker.step);
    for (const s of marker.gaveUp) gaveUp.add(s);
  }
  const last = markers[markers.length - 1]?.marker;
  if (last) {
    if (last.kind === 'refetch') {
      return { next: last.step, attempts: last.attempts, gaveUp, failedTries: 0 };
    }
    let failedTries = 0;
    for (let i = markers.length - 1; i >= 0; i--) {
      const { marker, failed } = markers[i]!;
      if (!failed || marker.step !== last.step || marker.kind === 'refetch') break;
      failedTries++;
    }
    const failedCall = markers[markers.length - 1]!.args;
    return failedTries > 0 && failedTries <= limit
      ? { next: last.step, attempts: new Map(), gaveUp, failedTries, failedCall }
      : { next: last.step + 1, attempts: new Map(), gaveUp, failedTries: 0 };
  }
  let done = 0;
  for (const m of messages) {
    if (m.role !== 'user') continue;
    for (const s of m.content.matchAll(MARKERS)) {
      if (Number(s[2]) === n) done = Math.max(done, Number(s[1]));
    }
  }
  return { next: done, attempts: new Map(), gaveUp, failedTries: 0 };
}

type Decision =
  | { kind: 'do'; index: number; guessed: Blocker[] }
  | {
      kind: 'refetch';
      index: number;
      producer: number;
      attempts: Map<number, number>;
      why: string;
    };

function decide(
  plan: ReferencePlan,
  view: (index: number) => StepView,
  at: Progress,
  limit: number,
): Decision {
  const last = plan.steps.length - 1;
  // Past the end (the episode should have stopped): repeat the final call.
  const index = Math.min(at.next, last);
  const attempts = at.next > last ? new Map<number, number>() : at.attempts;

  // The deepest producer of a missing value that may still be re-fetched: a producer whose own
  // inputs are missing too is preceded by their producers.
  const refetchable = (producer: number, depth: number): number | undefined => {
    if (depth < 8) {
      for (const b of view(producer).blockers) {
        if (b.fromStep >= producer) continue;
        const deeper = refetchable(b.fromStep, depth + 1);
        if (deeper !== undefined) return deeper;
      }
    }
    if (at.gaveUp.has(producer)) return undefined;
    return (attempts.get(producer) ?? 0) < limit ? producer : undefined;
  };

  const blockers = view(index).blockers;
  for (const b of blockers) {
    const producer = refetchable(b.fromStep, 0);
    if (producer !== undefined) {
      const next = new Map(attempts);
      next.set(producer, (next.get(producer) ?? 0) + 1);
      return { kind: 'refetch', index, producer, attempts: next, why: b.why };
    }
  }
  return { kind: 'do', index, guessed: blockers };
}

/**
 * The value the agent makes up for one it cannot find: a seeded value of the same shape (digits
 * for digits, letters for letters), keyed by the task and where the value comes from, never by
 * the value itself (the agent does not know it).
 */
function guessValue(need: Need, seed: number, taskId: string): string {
  const random = seededRandom(seed, taskId, 'guess', need.fromStep, need.field ?? need.arg ?? '');
  return [...need.value]
    .map((c) => {
      if (c >= '0' && c <= '9') return String(Math.floor(random() * 10));
      if (c >= 'a' && c <= 'z') return String.fromCharCode(97 + Math.floor(random() * 26));
      if (c >= 'A' && c <= 'Z') return String.fromCharCode(65 + Math.floor(random() * 26));
      return c;
    })
    .join('');
}

/**
 * A wrong value of the same shape: the last digit (or else the last letter) changed, chosen
 * deterministically from the seed, the task and the value.
 */
export function corrupt(value: string, seed: number, taskId: string): string {
  return corruptWith(value, seededRandom(seed, taskId, 'guess', value));
}

function corruptWith(value: string, random: Random): string {
  const chars = [...value];
  for (let i = chars.length - 1; i >= 0; i--) {
    const c = chars[i]!;
    if (c >= '0' && c <= '9') {
      chars[i] = String((Number(c) + 1 + Math.floor(random() * 9)) % 10);
      return chars.join('');
    }
  }
  for (let i = chars.length - 1; i >= 0; i--) {
    const c = chars[i]!;
    const base = c >= 'a' && c <= 'z' ? 97 : c >= 'A' && c <= 'Z' ? 65 : -1;
    if (base !== -1) {
      const shift = 1 + Math.floor(random() * 25);
      chars[i] = String.fromCharCode(base + ((c.charCodeAt(0) - base + shift) % 26));
      return chars.join('');
    }
  }
  return `${value}x`;
}

/** `args` with every whole-token occurrence of `value` (in strings, or as a number) replaced. */
export function replaceValue<T>(args: T, value: string, wrong: string): T {
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v === value ? wrong : replaceTokens(v, value, wrong);
    }
    if (typeof v === 'number') {
      return String(v) === value && Number.isFinite(Number(wrong)) ? Number(wrong) : v;
    }
    if (Array.isArray(v)) return v.map(visit);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, visit(x)]));
    }
    return v;
  };
  return visit(args) as T;
}

function replaceTokens(text: string, value: string, wrong: string): string {
  if (!containsToken(text, value)) return text;
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`, 'g'), wrong);
}

/**
 * One scalar argument (not the app or API name) made wrong: the agent's random slip. A model's
 * wrong value is mostly a plausible one: the same field of another record of the same kind it
 * can see (the neighbouring song's id, the next contact of a search), which an API accepts as
 * readily as the right one. A value with no such neighbour in view is mistyped. So the more
 * records of a kind a prompt holds, the likelier a slip goes unnoticed (issue 22).
 */
function slip(
  args: Record<string, unknown>,
  random: Random,
  records: readonly VisibleRecord[],
): Record<string, unknown> {
  const paths: string[][] = [];
  const walk = (v: unknown, path: string[]) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    } else if (typeof v === 'string' || typeof v === 'number') {
      const key = path[path.length - 1];
      if (path.length > 1 || (key !== 'app' && key !== 'api')) paths.push(path);
    }
  };
  walk(args, []);
  if (paths.length === 0) return args;
  const path = paths[Math.floor(random() * paths.length)]!;
  const copy = structuredClone(args);
  let parent: Record<string, unknown> = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string, unknown>;
  const key = path[path.length - 1]!;
  const old = parent[key];
  const wrong = confusedWith(String(old), records, random) ?? corruptWith(String(old), random);
  parent[key] = typeof old === 'number' && Number.isFinite(Number(wrong)) ? Number(wrong) : wrong;
  return copy;
}

/**
 * Another value of a field that holds `value`, taken from a visible record of the same kind (the
 * same call's response, the same list: another contact of the search, not a song), drawn with
 * `random`; undefined when no visible record holds `value` or no record of its kind differs there.
 */
function confusedWith(
  value: string,
  records: readonly VisibleRecord[],
  random: Random,
): string | undefined {
  const holders = new Set<string>();
  for (const r of records) {
    for (const [k, v] of Object.entries(r.fields))
      if (v === value) holders.add(`${k}\n${kindOf(r)}`);
  }
  if (holders.size === 0) return undefined;
  const others = new Set<string>();
  for (const r of records) {
    const kind = kindOf(r);
    for (const [k, v] of Object.entries(r.fields)) {
      if (v !== value && holders.has(`${k}\n${kind}`)) others.add(v);
    }
  }
  if (others.size === 0) return undefined;
  const sorted = [...others].sort();
  return sorted[Math.floor(random() * sorted.length)];
}

/** What kind of record it is: the call that returned it (or the summary) and the list it is in. */
function kindOf(r: VisibleRecord): string {
  const from = r.source.kind === 'user' ? 'user' : (r.source.call ?? 'summary');
  return `${r.source.kind}:${from}:${r.list?.key ?? ''}`;
}

/** `music.show_playlist with playlist_id=48213` (credentials left out, long values cut). */
function describe(tool: string, args: Record<string, unknown>): string {
  const { app, api } = args;
  const isApiCall = typeof app === 'string' && typeof api === 'string';
  const name = isApiCall ? `${app}.${api}` : tool;
  const inner = isApiCall ? args.args : args;
  const parts: string[] = [];
  if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
    for (const [k, v] of Object.entries(inner)) {
      if (/token|password/i.test(k)) continue;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
        parts.push(`${k}=${clip(String(v), 40)}`);
      }
      if (parts.length === 4) break;
    }
  }
  return parts.length === 0 ? name : `${name} with ${parts.join(', ')}`;
}

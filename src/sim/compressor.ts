import { countTokens, type ChatMessage } from '../llm/index.js';
import { isErrorResult, parseAgentMarker } from './agent.js';
import {
  factGroups,
  filterJson,
  filterLines,
  formatFactLine,
  parseSourcedFactLine,
  type Fact,
  type FieldPolicy,
} from './fields.js';
import { callOf } from './records.js';
import { bearing, bears } from './relevance.js';
import { clip, jsonSpans, section, tryParseJson } from './text.js';
import { CompressorMemo } from './compressor-memo.js';
import { readGuideline, verdictFor, type GuidelineReading } from './guideline-reading.js';
import { judgementSeed } from './judgement.js';

/**
 * The simulated compressors (ARCHITECTURE §6, issue 22). They read the guideline in the system
 * message through the lexicon (guideline-reading.ts: prose, plus the old `KEEP:` lines), and the
 * rest of the prompt as evidence of what matters; they answer under the headings a real
 * compressor must use (`# Refined Observation`, `# History Summary`).
 *
 * A summary holds only what its guideline (or, for the summary baseline, its system prompt) asks
 * for: a progress statement when progress is asked for, the goal when the goal is, fact lines
 * of the fields it keeps; and never more than half the tokens of what it folds.
 */

/** A summary is at most this share of the tokens it replaces (issue 22). */
export const MAX_SUMMARY_SHARE = 0.5;
/** Longest free-text line (a non-JSON observation) carried into a summary. */
const MAX_NOTE_CHARS = 200;
/** Longest goal line of a summary. */
const MAX_GOAL_CHARS = 160;

function content(messages: readonly ChatMessage[], role: 'system' | 'user'): string {
  return messages
    .filter((m) => m.role === role)
    .map((m) => m.content ?? '')
    .join('\n');
}

/** The user message without one section: what the prompt shows besides the text compressed. */
function without(user: string, tag: string): string {
  const body = section(user, tag);
  return body === undefined ? user : user.replace(body, '');
}

/** The observation compressor: the `<observation>` filtered, as compact JSON when it is JSON. */
export function simObservationCompressor(
  messages: readonly ChatMessage[],
  memo = new CompressorMemo(),
): string {
  const system = content(messages, 'system');
  const user = content(messages, 'user');
  const task = section(user, 'task') ?? '';
  const session = section(user, 'session') ?? '';
  const policy: FieldPolicy = {
    reading: readGuideline(section(system, 'guideline') ?? ''),
    evidence: without(user, 'observation'),
    // The session ends with the call that produced the observation: the kind of its records.
    judgement: judgementSeed('obs', task, lastCall(session)),
    requested: requestedFields(session),
    focus: focusOf(task, session),
    memo,
  };
  const observation = section(user, 'observation') ?? '';
  const json = tryParseJson(observation);
  let body: string;
  if (json !== undefined) {
    // "Shorten long lists": the records of a list that bear on the job (relevance.ts).
    const kept = filterJson(
      policy.reading.shortenLists
        ? bearing(json, { focus: policy.focus, cutUnrelated: policy.reading.cutLists, memo })
        : json,
      policy,
    );
    body = kept === undefined ? '{}' : JSON.stringify(kept);
  } else {
    body = filterLines(observation, policy);
  }
  return `# Refined Observation\n${body === '' ? '(nothing relevant to the task)' : body}`;
}

/**
 * Fields the agent says it lacks in the reasoning of rendered turns: the backticked names of the
 * clause that says so, up to the next `;` ("the `id` of items item 16 is not in my context;",
 * "not in my context (no item with name=Rene Crist and its `phone_number`);", "some items of page
 * 2 have no `created_at` in my context"), not those of the rest of the line (a paging note's
 * `has_more`).
 */
function requestedFields(turns: string): Set<string> {
  const out = new Set<string>();
  for (const line of turns.split('\n')) {
    if (!line.startsWith('Assistant:')) continue;
    const at = line.indexOf('in my context');
    if (at === -1) continue;
    const end = line.indexOf(';', at);
    const clause = line.slice(0, end === -1 ? undefined : end);
    for (const m of clause.matchAll(/`([A-Za-z_][\w.]*)`/g)) out.add(m[1]!);
  }
  return out;
}

/** The call of the last `Action:` line of rendered turns (`music.show_song_library`), or ''. */
function lastCall(turns: string): string {
  const actions = turns.split('\n').filter((l) => l.startsWith('Action:'));
  const last = actions[actions.length - 1];
  return last === undefined ? '' : actionName(last.slice(7).trim());
}

/** The task and the `Action:` lines of rendered turns (render-history.ts): the job at hand. */
function focusOf(task: string, turns: string): string {
  return [task, ...turns.split('\n').filter((l) => l.startsWith('Action:'))].join('\n');
}

/** What a summary carries, oldest first. */
type Memory = {
  /** The newest progress marker line and the APIs the agent has called. */
  lastStep: string | null;
  apis: string[];
  /** What the agent did (calls that act on an app's data and were not refused), oldest first. */
  done: string[];
  facts: string[];
  /** The provider's memo: a summary's lines are parsed again at every merge (issue #28). */
  readonly memo: CompressorMemo;
};

/** The history compressor (with a guideline) and the summary baseline (without one). */
export function simHistoryCompressor(
  messages: readonly ChatMessage[],
  memo = new CompressorMemo(),
): string {
  const system = content(messages, 'system');
  const user = content(messages, 'user');
  const guideline = section(system, 'guideline');
  const structured = guideline === undefined && system.includes('USER_CONTEXT');
  // The summary baseline has no guideline: its system prompt says what to keep.
  const reading = readGuideline(guideline ?? system);
  const history = section(user, 'history') ?? '';
  const task = (section(user, 'task') ?? '').replace(/\s+/g, ' ').trim();
  const policy: FieldPolicy = {
    reading,
    // Evidence of relevance: the task and the calls the agent made.
    evidence: [task, ...history.split('\n').filter((l) => l.startsWith('Action:'))].join('\n'),
    // Set per call whose result is read (readObservation).
    judgement: judgementSeed('hist', task, ''),
    requested: requestedFields(history),
    focus: focusOf(task, history),
    memo,
  };

  const memory: Memory = { lastStep: null, apis: [], done: [], facts: [], memo };
  const previous = section(user, 'previous_summary') ?? '';
  if (previous.trim() !== '(none)') readSummary(previous, policy, memory);
  readHistory(history, policy, memory, task);

  if (reading.stale) dropFinished(memory);
  const budget = Math.floor(MAX_SUMMARY_SHARE * countTokens(previous + '\n' + history));
  const render = (facts: string[]) => renderSummary(structured, reading, task, memory, facts);
  const facts = memory.facts;
  let text = render(facts);
  // Over the budget (a summary is at most half of what it folds), a summarizer cuts what bears
  // least on the job: API documentation first (it can be read again), then facts that bear on
  // nothing the task or the agent's calls show (the threads about other things, of a list of
  // 57), and only then what does (the access token it passes, the account it is about to use).
  // Within each, the oldest facts go first.
  const tiers = budgetTiers(facts, policy.focus, reading.allItems, memo);
  const keep = () => {
    const kept = new Set(tiers.flat());
    return facts.filter((f) => kept.has(f));
  };
  for (let t = 0; t < tiers.length; t++) {
    while (tiers[t]!.length > 0 && countTokens(text) > budget) {
      tiers[t] = tiers[t]!.slice(Math.max(1, Math.floor(tiers[t]!.length / 8)));
      text = render(keep());
    }
  }
  return text;
}

/**
 * A summary's facts in the order a summarizer over its length gives them up, each oldest first:
 * documentation, facts bearing on nothing in the job at hand (`bears`), the rest. A guideline that
 * asks for every item of a list ("never cut lists short") is obeyed as far as the length allows:
 * the items of a response's list (`items[3]`, not an order's own products `items[3].items[0]`)
 * then go after everything else that bears on nothing, and before what the job bears on (the
 * token the agent passes, the account it uses), which a re-read page cannot give back. A login
 * bears on the job from the moment it is read, not from the first call that passes its token.
 */
function budgetTiers(
  facts: readonly string[],
  focus: string,
  allItems: boolean,
  memo: CompressorMemo,
): string[][] {
  const tiers: string[][] = [[], [], [], []];
  for (const line of facts) {
    if (isDocumentation(line, memo)) {
      tiers[0]!.push(line);
      continue;
    }
    const fact = parseSourcedFactLine(line, memo);
    if (allItems && fact?.path != null && LIST_ITEM.test(fact.path)) {
      tiers[2]!.push(line);
      continue;
    }
    // A login's token is what the app's later calls need: the agent logged in to use the app,
    // so the token bears on the job before any call has passed it (a summarizer keeps logins).
    const record = Object.fromEntries((fact?.facts ?? []).map((f) => [f.key, f.value]));
    const job = fact !== undefined && (LOGIN.test(fact.source ?? '') || bears(record, focus, memo));
    tiers[job ? 3 : 1]!.push(line);
  }
  return tiers;
}

/** The response of an app's login (`phone.login`). */
const LOGIN = /^[a-z_]+\.login$/;

/** The path of an item of a response's own list (`items[3]`, `songs[0]`). */
const LIST_ITEM = /^[A-Za-z_]\w*\[\d+\]$/;

/** Records a call: the APIs called, the most recent last. */
function called(memory: Memory, api: string): void {
  const at = memory.apis.indexOf(api);
  if (at !== -1) memory.apis.splice(at, 1);
  memory.apis.push(api);
}

/** An API that reads (or logs in), as its name says; any other call acts on the app's data. */
const READS = /^(show|search|get|list|find|read|login|logout)(_|$)/;
const SERVICE_APPS = new Set(['api_docs', 'supervisor']);

/**
 * "Details that no longer matter" (issue 22): an app the agent acted on (a call that is not a
 * read) and then left for another app is a finished part of the task; what it read there goes,
 * except its login (a summarizer keeps credentials). Read from the calls alone, most recent last.
 */
function dropFinished(memory: Memory): void {
  const appOf = (api: string) => api.split('.')[0] ?? api;
  const work = memory.apis.filter((a) => !SERVICE_APPS.has(appOf(a)));
  const finished = new Set<string>();
  work.forEach((api, i) => {
    const app = appOf(api);
    const acted = work.some((a) => appOf(a) === app && !READS.test(a.split('.')[1] ?? ''));
    const lastOfApp = work.map(appOf).lastIndexOf(app);
    if (acted && lastOfApp === i && i < work.length - 1) finished.add(app);
  });
  const calledApis = new Set(memory.apis.map((a) => a.split('.')[1] ?? a));
  memory.facts = memory.facts.filter((line) => {
    const fact = parseSourcedFactLine(line, memory.memo);
    const source = fact?.source;
    if (!source) return true;
    const value = (key: string) => fact.facts.find((f) => f.key === key)?.value;
    // Read only to make a call the agent has since made: the password of an account it logged
    // in to (the login's token is what it uses now), the listing entry of an API it has called.
    if (source === 'supervisor.show_account_passwords') {
      const account = value('account_name');
      if (account !== undefined && memory.apis.includes(`${account}.login`)) return false;
    }
    if (source === 'api_docs.show_api_descriptions') {
      const api = value('name');
      if (api !== undefined && calledApis.has(api)) return false;
    }
    const [app, api] = source.split('.');
    return !(finished.has(app ?? '') && !/^login$/.test(api ?? ''));
  });
}

/** A fact read from the API documentation (`api_docs.*`), not from the agent's data. */
function isDocumentation(line: string, memo: CompressorMemo): boolean {
  return parseSourcedFactLine(line, memo)?.source?.startsWith('api_docs.') === true;
}

function renderSummary(
  structured: boolean,
  reading: GuidelineReading,
  task: string,
  memory: Memory,
  facts: string[],
): string {
  const progress: string[] = [];
  if (reading.progress) {
    if (memory.lastStep !== null) progress.push(memory.lastStep);
    if (memory.apis.length > 0) progress.push(`- Called: ${memory.apis.join(', ')}`);
    progress.push(...memory.done);
  }
  const state = facts.length > 0 ? grouped(facts, memory.memo) : ['(none)'];
  if (structured) {
    return [
      '# History Summary',
      `USER_CONTEXT: ${reading.goal && task !== '' ? clip(task, MAX_GOAL_CHARS) : '(see the task)'}`,
      'COMPLETED:',
      ...(progress.length > 0 ? progress : ['(none)']),
      'PENDING: the rest of the task after the completed actions above.',
      'CURRENT_STATE:',
      ...state,
    ].join('\n');
  }
  return [
    '# History Summary',
    ...(reading.goal && task !== '' ? [`GOAL: ${clip(task, MAX_GOAL_CHARS)}`] : []),
    ...(progress.length > 0 ? ['PROGRESS:', ...progress] : []),
    'FACTS:',
    ...state,
  ].join('\n');
}

/**
 * Fact lines under one `[app.api]` line per call they come from, in the order of each call's
 * newest fact (a summary names its sources once, not on every line).
 */
function grouped(facts: readonly string[], memo: CompressorMemo): string[] {
  const groups = new Map<string, string[]>();
  for (const line of facts) {
    const fact = parseSourcedFactLine(line, memo);
    const source = fact?.source ?? '';
    const body = fact?.source ? line.replace(`- ${fact.source}: `, '- ') : line;
    const list = groups.get(source) ?? [];
    list.push(body);
    groups.delete(source);
    groups.set(source, list);
  }
  const out: string[] = [];
  for (const [source, lines] of groups) {
    if (source !== '') out.push(`[${source}]`);
    out.push(...lines);
  }
  return out;
}

function addOnce(list: string[], line: string): void {
  const at = list.indexOf(line);
  if (at !== -1) list.splice(at, 1);
  list.push(line);
}

/**
 * A fact about a record: one line per record, as a summary writes it. What the summary already
 * says about the same record from the same call (the same `id`, or else the same name, title,
 * path, email or phone number) is merged in (the new values win), so reading a record again
 * completes its line instead of adding a second, partial one.
 */
const IDENTIFYING = ['id', 'name', 'title', 'path', 'email', 'phone_number'];

function addFact(
  memo: CompressorMemo,
  list: string[],
  group: readonly Fact[],
  source: string | undefined,
  path: string | null = null,
): void {
  const keys = group.filter((f) => IDENTIFYING.includes(f.key) && f.value.length >= 2);
  if (keys.length > 0 && source !== undefined) {
    // The new record's identifying values, in IDENTIFYING order, looked up once rather than for
    // every line of the summary (issue #28: a summary is scanned for every fact added to it).
    const mine = IDENTIFYING.map((key) => keys.find((f) => f.key === key)?.value);
    // A line from the same call names it (`- app.api: …`): a substring test rules out the lines
    // of other calls before their parse is looked up (most of a long summary's lines).
    const named = `${source}: `;
    const at = list.findIndex((line) => {
      if (!line.includes(named)) return false;
      const old = parseSourcedFactLine(line, memo);
      if (old?.source !== source) return false;
      // The same record: the first identifying field both lines show agrees.
      for (let i = 0; i < IDENTIFYING.length; i++) {
        if (mine[i] === undefined) continue;
        const theirs = old.facts.find((f) => f.key === IDENTIFYING[i])?.value;
        if (theirs !== undefined) return mine[i] === theirs;
      }
      return false;
    });
    if (at !== -1) {
      const old = parseSourcedFactLine(list[at]!, memo)!;
      const merged = new Map(old.facts.map((f) => [f.key, f.value]));
      for (const f of group) merged.set(f.key, f.value);
      list.splice(at, 1);
      list.push(
        formatFactLine(
          [...merged].map(([key, value]) => ({ key, value })),
          source,
          path ?? old.path,
        ),
      );
      return;
    }
  }
  addOnce(list, formatFactLine(group, source, path));
}

/**
 * Folds a summary written by `simHistoryCompressor` back into memory: facts the guideline now
 * drops by name go, the rest is carried as it was.
 */
function readSummary(text: string, policy: FieldPolicy, memory: Memory): void {
  let heading = '';
  let source: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const group = /^\[([\w-]+\.[\w-]+)\]$/.exec(line);
    if (group) {
      source = group[1];
      continue;
    }
    const h = /^([A-Z_]+):/.exec(line);
    if (h) {
      heading = h[1] ?? '';
      source = undefined;
      continue;
    }
    if (!line.startsWith('- ')) continue;
    if (heading === 'COMPLETED' || heading === 'PROGRESS') {
      if (line.startsWith('- Called: ')) {
        for (const api of line.slice(10).split(', ')) called(memory, api);
      } else if (line.startsWith('- Done: ')) {
        addOnce(memory.done, line);
      } else if (parseAgentMarker(line.slice(2))) {
        memory.lastStep = line;
      }
      continue;
    }
    const fact = parseSourcedFactLine(line, memory.memo);
    if (fact === undefined || fact.facts.length === 0) {
      addOnce(memory.facts, line);
      continue;
    }
    // What an earlier summary kept is carried over, unless the guideline drops it by name.
    // A conditional drop ("unless the task asks about them") was weighed when the line was written.
    const kept = fact.facts.filter(
      ({ key }) =>
        verdictFor(key, policy.reading) !== 'drop' || policy.reading.unlessAsked.has(key),
    );
    if (kept.length > 0) addFact(memory.memo, memory.facts, kept, fact.source ?? source, fact.path);
  }
}

/**
 * Reads turns rendered by src/compress/render-history.ts (`[Turn N]`, `Assistant: …`,
 * `Action: name(args)`, `Observation (name): …`): the agent's progress from its reasoning and
 * actions, facts from the JSON in observations, each line naming the call it came from.
 */
function readHistory(text: string, policy: FieldPolicy, memory: Memory, task: string): void {
  let call = '';
  let about: string | undefined;
  let acted: string | undefined;
  let observation: string[] | undefined;
  const read: { text: string; call: string; about: string | undefined }[] = [];
  const flush = () => {
    if (observation !== undefined) {
      const text = observation.join('\n');
      read.push({ text, call, about });
      // "What has been done": a call that acted on the app's data and was not refused.
      if (acted !== undefined && !isErrorResult(text.trim())) addOnce(memory.done, acted);
      acted = undefined;
    }
    observation = undefined;
  };
  for (const line of text.split(/\r?\n/)) {
    if (/^\[Turn (\d+)\]/.test(line)) {
      flush();
      continue;
    }
    if (line.startsWith('Assistant:')) {
      flush();
      const marker = parseAgentMarker(line);
      if (marker && marker.kind !== 'refetch') {
        memory.lastStep = `- Step ${marker.step + 1} of ${marker.of}: ${marker.action}`;
      }
      continue;
    }
    if (line.startsWith('Action:')) {
      flush();
      call = actionName(line.slice(7).trim());
      about = documentedApi(line.slice(7).trim());
      acted = doneLine(line.slice(7).trim());
      called(memory, call);
      continue;
    }
    const o = /^Observation(?: \([^)]*\))?: ?(.*)$/.exec(line);
    if (o) {
      flush();
      observation = [o[1] ?? ''];
      continue;
    }
    observation?.push(line);
  }
  flush();
  for (const r of read) {
    // "Details that no longer matter": the documentation of an API the agent has since called
    // (its own call shows how, and the summary names it).
    if (policy.reading.stale && r.about !== undefined && memory.apis.includes(r.about)) continue;
    readObservation(
      r.text,
      r.call,
      { ...policy, judgement: judgementSeed('hist', task, r.call) },
      memory,
    );
  }
}

/** `app.api` whose documentation an `api_docs.show_api_doc` action reads. */
function documentedApi(action: string): string | undefined {
  const m = /^([\w.-]+)\((.*)\)$/s.exec(action);
  if (!m) return undefined;
  const { call, args } = callOf(m[1] ?? '', m[2] ?? '');
  if (call !== 'api_docs.show_api_doc') return undefined;
  const { app_name: app, api_name: api } = args;
  return typeof app === 'string' && typeof api === 'string' ? `${app}.${api}` : undefined;
}

/**
 * `- Done: music.add_song_to_queue song_id=7` for a call that acts on an app's data (not a read,
 * not the service apps), its credentials left out; `undefined` for any other call.
 */
function doneLine(action: string): string | undefined {
  const m = /^([\w.-]+)\((.*)\)$/s.exec(action);
  if (!m) return undefined;
  const { call, args } = callOf(m[1] ?? '', m[2] ?? '');
  const [app, api] = call.split('.');
  if (app === undefined || api === undefined || SERVICE_APPS.has(app) || READS.test(api)) {
    return undefined;
  }
  const parts = Object.entries(args)
    .filter(
      ([k, v]) => !/token|password/i.test(k) && (typeof v === 'string' || typeof v === 'number'),
    )
    .map(([k, v]) => `${k}=${String(v).replace(/\s+/g, '_').slice(0, 40)}`);
  return `- Done: ${call}${parts.length > 0 ? ` ${parts.join(' ')}` : ''}`;
}

/** `call_api({"app":"music","api":"login",…})` → `music.login`. */
function actionName(text: string): string {
  const m = /^([\w.-]+)\((.*)\)$/s.exec(text);
  if (!m) return clip(text, 60);
  return callOf(m[1] ?? '', m[2] ?? '').call;
}

function readObservation(text: string, call: string, policy: FieldPolicy, memory: Memory): void {
  const spans = jsonSpans(text);
  if (spans.length === 0) {
    for (const line of filterLines(text, policy).split('\n')) {
      const note = line.trim();
      if (note !== '') addOnce(memory.facts, `- ${clip(note, MAX_NOTE_CHARS)}`);
    }
    return;
  }
  for (const span of spans) {
    const kept = policy.reading.shortenLists
      ? bearing(span, { focus: policy.focus, cutUnrelated: false, memo: policy.memo })
      : span;
    for (const { facts, path } of factGroups(kept, policy)) {
      addFact(memory.memo, memory.facts, facts, call === '' ? undefined : call, path);
    }
  }
}

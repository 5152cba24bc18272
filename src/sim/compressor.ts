import { countTokens, type ChatMessage } from '../llm/index.js';
import { filterJson, filterLines, parseSourcedFactLine, type FieldPolicy } from './fields.js';
import { bearing, bears } from './relevance.js';
import { clip, section, tryParseJson } from './text.js';
import { CompressorMemo } from './compressor-memo.js';
import { readGuideline, type GuidelineReading } from './guideline-reading.js';
import { judgementSeed } from './judgement.js';
import {
  actionName,
  dropFinished,
  LIST_ITEM,
  LOGIN,
  readHistory,
  readSummary,
  type Memory,
} from './summary-memory.js';

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

import { isErrorResult, parseAgentMarker } from './agent.js';
import {
  factGroups,
  filterLines,
  formatFactLine,
  parseSourcedFactLine,
  type Fact,
  type FieldPolicy,
} from './fields.js';
import { callOf } from './records.js';
import { bearing } from './relevance.js';
import { clip, jsonSpans } from './text.js';
import type { CompressorMemo } from './compressor-memo.js';
import { verdictFor } from './guideline-reading.js';
import { judgementSeed } from './judgement.js';

/** Longest free-text line (a non-JSON observation) carried into a summary. */
const MAX_NOTE_CHARS = 200;

/**
 * What the simulated history compressor remembers (compressor.ts): the summary it replaces and
 * the turns it folds, read into one memory of progress, done actions and fact lines, from which
 * it writes the new summary.
 */

/** What a summary carries, oldest first. */
export type Memory = {
  /** The newest progress marker line and the APIs the agent has called. */
  lastStep: string | null;
  apis: string[];
  /** What the agent did (calls that act on an app's data and were not refused), oldest first. */
  done: string[];
  facts: string[];
  /** The provider's memo: a summary's lines are parsed again at every merge (issue #28). */
  readonly memo: CompressorMemo;
};

/** The response of an app's login (`phone.login`). */
export const LOGIN = /^[a-z_]+\.login$/;

/** The path of an item of a response's own list (`items[3]`, `songs[0]`). */
export const LIST_ITEM = /^[A-Za-z_]\w*\[\d+\]$/;

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
export function dropFinished(memory: Memory): void {
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
export function readSummary(text: string, policy: FieldPolicy, memory: Memory): void {
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
export function readHistory(text: string, policy: FieldPolicy, memory: Memory, task: string): void {
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
export function actionName(text: string): string {
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

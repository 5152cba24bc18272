import type { CompressionAnalysis, DistortedFact, Fact, UtilityAnalysis } from '../domain/index.js';
import {
  parseCompressionEvents,
  parseRenderedTrajectory,
  type RenderedBlock,
} from './read-trajectory.js';
import { parseFactLine } from './fields.js';
import { namesField, stemsOf } from './stems.js';
import { PAGE_ARGS } from './list-gaps.js';
import {
  clip,
  containsToken,
  jsonSpans,
  leaves,
  scalarText,
  section,
  tryParseJson,
} from './text.js';

/**
 * The simulated analyzer (ARCHITECTURE §6). It reads the prompts of src/prompts/analyzer-*.txt,
 * which carry trajectories rendered by src/optimize/render-trajectory.ts, and answers in the
 * JSON of src/optimize/analysis.ts, as a real analyzer must.
 */

/** Values shorter than this (`0`, `5`) occur everywhere by chance and are not evidence. */
const MIN_VALUE_CHARS = 2;
/** Keys of an action that name the call or its outcome, not data it passes on. */
const CALL_KEYS = new Set(['app', 'api', 'status']);

const CREDENTIAL_FIELD = /token|password|passwd|secret|session|api_?key|credential/i;

type Step = { actions: string[]; observations: RenderedBlock[] };

function byStep(blocks: readonly RenderedBlock[]): Map<number, Step> {
  const steps = new Map<number, Step>();
  for (const b of blocks) {
    if (b.label !== 'ACTION' && b.label !== 'OBSERVATION') continue;
    let s = steps.get(b.step);
    if (!s) steps.set(b.step, (s = { actions: [], observations: [] }));
    if (b.label === 'ACTION') s.actions.push(b.body);
    else s.observations.push(b);
  }
  return steps;
}

function lastStep(steps: Map<number, Step>): number {
  return Math.max(-1, ...steps.keys());
}

/** `call_api {"app":…}` → the tool name and its parsed arguments (undefined for code). */
function splitAction(action: string): { name: string; args: unknown } {
  const space = action.indexOf(' ');
  if (space === -1) return { name: action, args: undefined };
  return { name: action.slice(0, space), args: tryParseJson(action.slice(space + 1)) };
}

/** `music.show_playlist` for API calls, else the tool name. */
function target(action: string): string {
  const { name, args } = splitAction(action);
  if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
    const { app, api } = args as Record<string, unknown>;
    if (typeof app === 'string' && typeof api === 'string') return `${app}.${api}`;
  }
  return name;
}

/** Scalar argument values of an action, with the argument key each was passed as. */
function argValues(action: string): { key: string; value: string }[] {
  const { args } = splitAction(action);
  if (args === undefined) {
    // Code or free text: quoted strings and multi-digit numbers are the candidate facts.
    const found = [...action.matchAll(/"([^"\n]{2,})"|'([^'\n]{2,})'|\b(\d{2,})\b/g)];
    return found.map((m) => ({ key: 'value', value: m[1] ?? m[2] ?? m[3] ?? '' }));
  }
  return leaves(args)
    .map((l) => ({ key: l.path[l.path.length - 1] ?? 'value', value: scalarText(l.value) }))
    .filter((v): v is { key: string; value: string } => v.value !== undefined)
    .filter((v) => v.value.length >= MIN_VALUE_CHARS);
}

/** Where a value appeared in observations before `before`: the JSON key and the step. */
function findSource(
  steps: Map<number, Step>,
  value: string,
  before: number,
): { field: string | null; step: number } | undefined {
  for (let s = before - 1; s >= 0; s--) {
    for (const obs of steps.get(s)?.observations ?? []) {
      if (!containsToken(obs.body, value)) continue;
      const json = tryParseJson(obs.body);
      for (const root of json !== undefined ? [json] : jsonSpans(obs.body)) {
        const leaf = leaves(root).find((l) => scalarText(l.value) === value);
        if (leaf) return { field: leaf.path[leaf.path.length - 1] ?? null, step: s };
      }
      const kv = new RegExp(`"?([A-Za-z_][\\w.-]*)"?\\s*[:=]\\s*"?${escape(value)}`).exec(obs.body);
      return { field: kv?.[1] ?? null, step: s };
    }
  }
  return undefined;
}

/** Every object in a parsed observation, innermost records included. */
function objectsOf(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap(objectsOf);
  if (value === null || typeof value !== 'object') return [];
  const own = value as Record<string, unknown>;
  return [own, ...Object.values(own).flatMap(objectsOf)];
}

/** The record (innermost object) of the full run's observation at `step` that holds `value`. */
function sourceRecord(
  steps: Map<number, Step>,
  value: string,
  step: number,
): Record<string, unknown> | undefined {
  for (const obs of steps.get(step)?.observations ?? []) {
    const json = tryParseJson(obs.body);
    for (const root of json !== undefined ? [json] : jsonSpans(obs.body)) {
      const holders = objectsOf(root).filter((o) =>
        Object.values(o).some((v) => scalarText(v) === value),
      );
      if (holders.length > 0) return holders[holders.length - 1];
    }
  }
  return undefined;
}

/**
 * How the full run could tell the record it took a value from (issue 61): the record's fields
 * whose values the task states ("my Road Trip playlist" → `title` Road Trip). When those were
 * not in the compressed context, the compressed run could not pick the same record.
 */
function selectorsLost(
  full: Map<number, Step>,
  value: string,
  source: { step: number } | undefined,
  task: string,
  compSeen: string,
): Fact[] {
  if (source === undefined) return [];
  const record = sourceRecord(full, value, source.step);
  if (record === undefined) return [];
  const out: Fact[] = [];
  for (const [key, v] of Object.entries(record)) {
    const text = scalarText(v);
    if (text === undefined || text === value || text.length < 3) continue;
    if (!containsToken(task, text) || containsToken(compSeen, text)) continue;
    out.push({
      fact: `the \`${key}\` ${text} that the task names, which tells the record holding ${value}`,
      field: key,
      source_step: source.step,
    });
  }
  return out;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What the compressed run's agent had in its context when it chose its action at `step`. */
function seenBefore(blocks: readonly RenderedBlock[], step: number, task: string): string {
  let from = 0;
  let summary = '';
  for (const b of blocks) {
    if (b.label === 'HISTORY SUMMARY' && b.step <= step) {
      summary = b.body;
      from = (b.through ?? -1) + 1;
    }
  }
  const parts = [task, summary];
  for (const b of blocks) {
    if (b.step >= from && b.step < step && (b.label === 'ACTION' || b.label === 'OBSERVATION')) {
      parts.push(b.body);
    }
  }
  return parts.join('\n');
}

function fieldList(fields: readonly string[]): string {
  return fields.map((f) => `\`${f}\``).join(', ');
}

/** The first step whose actions differ, or where one run ended earlier; `null` when none. */
function firstDivergence(full: Map<number, Step>, comp: Map<number, Step>): number | null {
  const common = Math.min(lastStep(full), lastStep(comp)) + 1;
  for (let s = 0; s < common; s++) {
    if ((full.get(s)?.actions ?? []).join('\n') !== (comp.get(s)?.actions ?? []).join('\n')) {
      return s;
    }
  }
  return lastStep(full) !== lastStep(comp) ? common : null;
}

/** The analysis of a pair whose compressed run took the full run's actions and lacked nothing. */
const noEvidence = (): UtilityAnalysis => ({
  first_divergence: {
    step: null,
    description: 'The compressed run took the same actions as the full-context run.',
  },
  missing_facts: [],
  distorted_facts: [],
  lost_state: [],
  summary_inaccuracies: [],
  root_cause: null,
  remediation: 'This pair gives no evidence against the guideline; leave it unchanged.',
});

/** Values the full run's action at `d` passed that it had seen and the compressed run had not. */
function missingAt(
  full: Map<number, Step>,
  fullAction: string,
  d: number,
  compSeen: string,
): Fact[] {
  const fullSeen = [...full.entries()]
    .filter(([s]) => s < d)
    .flatMap(([, st]) => st.observations.map((o) => o.body))
    .join('\n');
  const missing: Fact[] = [];
  const counted = new Set<string>();
  for (const { key, value } of argValues(fullAction)) {
    if (counted.has(value)) continue;
    counted.add(value);
    if (!containsToken(fullSeen, value) || containsToken(compSeen, value)) continue;
    const source = findSource(full, value, d);
    missing.push({
      fact: `value ${value} (passed as \`${key}\` at step ${d})`,
      field: source?.field ?? key,
      source_step: source?.step ?? null,
    });
  }
  return missing;
}

/** Arguments of the same call that the compressed run passed with another value. */
function distortedAt(
  full: Map<number, Step>,
  fullAction: string,
  compAction: string | undefined,
  d: number,
): DistortedFact[] {
  const distorted: DistortedFact[] = [];
  if (compAction === undefined || target(compAction) !== target(fullAction)) return distorted;
  const compArgs = new Map(argValues(compAction).map((v) => [v.key, v.value]));
  for (const { key, value } of argValues(fullAction)) {
    const used = compArgs.get(key);
    if (used === undefined || used === value) continue;
    const source = findSource(full, value, d);
    distorted.push({
      fact: `\`${key}\` should be ${value}`,
      field: source?.field ?? key,
      source_step: source?.step ?? null,
      seen_as: used,
    });
  }
  return distorted;
}

/** What the analysis says in prose: the divergence, the lost credentials, the remediation. */
function describe(
  kind: string,
  full: Map<number, Step>,
  d: number,
  missing: Fact[],
  distorted: DistortedFact[],
  compAction: string | undefined,
): UtilityAnalysis {
  const fullAction = full.get(d)?.actions[0] ?? '';
  const fields = [...new Set([...missing, ...distorted].map((f) => f.field))];
  const repeats = compAction === undefined ? -1 : fullStepOf(full, compAction, d);
  const instead =
    compAction === undefined
      ? 'the compressed run had stopped'
      : `the compressed run called ${target(compAction)} instead` +
        (repeats >= 0 ? ` (repeating the call of step ${repeats}, apparently to recover it)` : '');
  const why =
    missing.length > 0
      ? `; ${fieldList(fields)} from step ${missing[0]!.source_step ?? '?'} was no longer in its context`
      : '';
  const where = kind === 'hist' ? 'in the summary' : 'in the compressed observation';
  return {
    first_divergence: {
      step: d,
      description: `At step ${d} the full-context run called ${target(fullAction)}; ${instead}${why}.`,
    },
    missing_facts: missing,
    distorted_facts: distorted,
    // The sim analyzer judges neither (a real one does, src/prompts/analyzer-ut.system.txt).
    summary_inaccuracies: [],
    root_cause: null,
    lost_state: missing
      .filter((f) => CREDENTIAL_FIELD.test(f.field))
      .map((f) => `the credential \`${f.field}\` from step ${f.source_step ?? '?'}`),
    remediation:
      fields.length > 0
        ? `Keep ${fieldList(fields)} verbatim ${where}: the agent later needed these values and had to re-fetch or guess them.`
        : 'Keep values that later calls copy (identifiers, credentials, amounts) verbatim.',
  };
}

/** Lengths of the lists of a parsed observation, by the key each is under. */
function listLengths(value: unknown, into = new Map<string, number>()): Map<string, number> {
  if (value === null || typeof value !== 'object') return into;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (Array.isArray(v)) into.set(key, Math.max(into.get(key) ?? 0, v.length));
    else listLengths(v, into);
  }
  return into;
}

function parsedObservation(step: Step | undefined): unknown {
  for (const obs of step?.observations ?? []) {
    const json = tryParseJson(obs.body);
    if (json !== undefined) return json;
  }
  return undefined;
}

/**
 * Whether the compressed run saw a list of the call at the full run's step `s` with fewer items
 * than the full run did, and an item it dropped held a value the full run later used: an item of
 * the full list holding one of `used` none of whose other values the compressed observation of
 * the same call shows (a record only shortened is still there).
 */
function listCutAt(
  full: Map<number, Step>,
  comp: Map<number, Step>,
  s: number,
  used: ReadonlySet<string>,
): Fact | undefined {
  const action = full.get(s)?.actions[0];
  if (action === undefined) return undefined;
  const compStep = [...comp.entries()].find(([, st]) => st.actions.includes(action))?.[1];
  const fullJson = parsedObservation(full.get(s));
  const compJson = parsedObservation(compStep);
  if (compJson === undefined) return undefined;
  const compText = JSON.stringify(compJson);
  const compLists = listLengths(compJson);
  for (const [key, n] of listLengths(fullJson)) {
    const m = compLists.get(key);
    if (m === undefined || m >= n) continue;
    const dropped = objectsOf(fullJson).some((item) => {
      const values = Object.values(item).flatMap((v) => scalarText(v) ?? []);
      if (!values.some((v) => used.has(v))) return false;
      return values
        .filter((v) => !used.has(v) && v.length >= 3)
        .every((v) => !compText.includes(v));
    });
    if (!dropped) continue;
    return {
      fact: `the \`${key}\` list of step ${s} had ${n} items in the full run and ${m} in the compressed context (list items were cut)`,
      field: 'items',
      source_step: s,
    };
  }
  return undefined;
}

/** Utility phase: why the compressed run diverged from the full one. */
export function simUtilityAnalysis(user: string): UtilityAnalysis {
  const task = section(user, 'task') ?? '';
  const kind = /Compressor under review: (\w+)/.exec(user)?.[1] ?? 'obs';
  const fullBlocks = parseRenderedTrajectory(section(user, 'full_trajectory') ?? '');
  const compBlocks = parseRenderedTrajectory(section(user, 'compressed_trajectory') ?? '');
  const full = byStep(fullBlocks);
  const comp = byStep(compBlocks);

  const diverged = firstDivergence(full, comp);
  if (diverged === null) return noEvidence();
  const d = diverged;
  const fullAction = full.get(d)?.actions[0] ?? '';
  const compAction = comp.get(d)?.actions[0];
  const compSeen = seenBefore(compBlocks, d, task);
  const missing = missingAt(full, fullAction, d, compSeen);
  const distorted = distortedAt(full, fullAction, compAction, d);
  // A value the compressed run did not pass as the full run did: could it tell the record?
  const compPassed = new Set(
    compAction === undefined ? [] : argValues(compAction).map((v) => v.value),
  );
  for (const { key, value } of argValues(fullAction)) {
    if (compPassed.has(value) || PAGE_ARGS.has(key) || CALL_KEYS.has(key)) continue;
    const source = findSource(full, value, d);
    // What its observations showed, without the task (which names the selector value itself).
    for (const f of selectorsLost(full, value, source, task, seenBefore(compBlocks, d, ''))) {
      if (!missing.some((m) => m.field === f.field)) missing.push(f);
    }
  }
  for (const f of lostAfter(full, comp, compBlocks, d, task)) {
    if (!missing.some((m) => m.field === f.field)) missing.push(f);
  }
  // A lost value from a list the compressed context showed shorter: the items were cut.
  const used = new Set(
    [...full.entries()]
      .filter(([step]) => step >= d)
      .flatMap(([, st]) => st.actions.flatMap((a) => argValues(a).map((v) => v.value))),
  );
  for (const step of new Set(missing.map((f) => f.source_step))) {
    const cut = step === null ? undefined : listCutAt(full, comp, step, used);
    if (cut && !missing.some((m) => m.field === 'items')) missing.push(cut);
  }
  return describe(kind, full, d, missing, distorted, compAction);
}

/**
 * Values the full-context run used after the divergence (in a later action's arguments or its
 * answer) that the compressed run's context lacked at the same step (issue 61). Only values the
 * compressed run had been given are counted: their source observation lies in the shared prefix,
 * or the compressed run made the same call that returned it; a value it never fetched because it
 * took another path is a consequence of the divergence, not a loss of the compressor. Only actions
 * and observations are read, never the agent's reasoning.
 */
function lostAfter(
  full: Map<number, Step>,
  comp: Map<number, Step>,
  compBlocks: readonly RenderedBlock[],
  d: number,
  task: string,
): Fact[] {
  const out: Fact[] = [];
  const counted = new Set<string>();
  const compActions = new Set([...comp.values()].flatMap((s) => s.actions));
  const compEnd = lastStep(comp) + 1;
  for (let s = d + 1; s <= lastStep(full); s++) {
    for (const action of full.get(s)?.actions ?? []) {
      for (const { key, value } of argValues(action)) {
        if (counted.has(value) || PAGE_ARGS.has(key) || CALL_KEYS.has(key)) continue;
        counted.add(value);
        const source = findSource(full, value, s);
        if (source === undefined) continue;
        const producer = full.get(source.step)?.actions ?? [];
        const given = source.step < d || producer.some((a) => compActions.has(a));
        if (!given) continue;
        if (containsToken(seenBefore(compBlocks, Math.min(s, compEnd), task), value)) continue;
        out.push({
          fact: `value ${value} (passed as \`${key}\` at step ${s}) was not in the compressed run's context`,
          field: source.field ?? key,
          source_step: source.step,
        });
      }
    }
  }
  return out;
}

/** The full-run step before `before` whose action equals `action`, or -1. */
function fullStepOf(full: Map<number, Step>, action: string, before: number): number {
  for (let s = before - 1; s >= 0; s--) {
    if (full.get(s)?.actions.includes(action)) return s;
  }
  return -1;
}

/** Fields and their values in what a compressor kept: JSON leaves and `key=value` fact lines. */
function keptFields(kept: string): Map<string, { values: string[]; scalar: boolean }> {
  const fields = new Map<string, { values: string[]; scalar: boolean }>();
  const add = (key: string, value: unknown) => {
    let f = fields.get(key);
    if (!f) fields.set(key, (f = { values: [], scalar: false }));
    const text = scalarText(value);
    if (text !== undefined && text.length >= MIN_VALUE_CHARS) {
      f.values.push(text);
      f.scalar = true;
    }
  };
  const json = tryParseJson(kept);
  for (const root of json !== undefined ? [json] : jsonSpans(kept)) {
    for (const l of leaves(root)) {
      const key = l.path[l.path.length - 1];
      if (key !== undefined) add(key, l.value);
    }
  }
  for (const line of kept.split(/\r?\n/)) {
    for (const { key, value } of parseFactLine(line)) add(key, value);
  }
  return fields;
}

/** Compression phase: kept fields the agent never used afterwards, and those it did use. */
export function simCompressionAnalysis(user: string): CompressionAnalysis {
  const task = section(user, 'task') ?? '';
  const taskStems = stemsOf(task);
  const events = parseCompressionEvents(section(user, 'compression_events') ?? '');
  const needed: string[] = [];
  const seenFields: string[] = [];
  const examples = new Map<string, string>();
  for (const event of events) {
    const used = event.actions.map((a) => a.text).join('\n');
    // Values the later calls pass as data: not which app and API, the page to read or the
    // outcome the agent reports.
    const passed = event.actions
      .flatMap((a) => argValues(a.text))
      .filter((v) => !PAGE_ARGS.has(v.key) && !CALL_KEYS.has(v.key))
      .map((v) => v.value);
    for (const [key, { values }] of keptFields(event.kept)) {
      if (!seenFields.includes(key)) seenFields.push(key);
      // Used: copied into a later call, whole or a value read out of it (the new phone number in
      // an email's body); or what the task asks by: a value it states (the folder it names) or
      // a field it names in other words ("played most" → `play_count`). The agent's reasoning
      // is never read (issue 61).
      const copied = (v: string) =>
        containsToken(used, v) || passed.some((p) => p.length < v.length && containsToken(v, p));
      const stated = (v: string) => v.length >= 3 && containsToken(task, v);
      if (values.some(copied) || values.some(stated) || namesField(taskStems, key)) {
        if (!needed.includes(key)) needed.push(key);
      }
      const long = values.find((v) => v.length >= 40);
      if (long !== undefined && !examples.has(key)) examples.set(key, long);
    }
  }
  const unused = seenFields.filter((f) => !needed.includes(f));
  const unusedContent = unused
    .filter((f) => examples.has(f))
    .slice(0, 5)
    .map((f) => `long \`${f}\` texts such as "${clip(examples.get(f) ?? '', 60)}"`);
  return {
    unused_fields: unused,
    unused_content: unusedContent,
    needed_fields: needed,
    remediation:
      unused.length > 0
        ? `Leave out ${fieldList(unused)}: no later action used them and the task does not ask by them.` +
          (needed.length > 0
            ? ` Keep ${fieldList(needed)}: later actions copied them or the task asks by them.`
            : '')
        : 'Everything the compressor kept was used later; no further tightening is indicated.',
  };
}

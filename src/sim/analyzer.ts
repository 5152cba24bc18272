import type { DistortedFact, Fact, UtilityAnalysis } from '../domain/index.js';
import { parseRenderedTrajectory } from './read-trajectory.js';

import { expectedItems, PAGE_ARGS, pageOf } from './list-gaps.js';
import { containsToken, scalarText, section, tryParseJson } from './text.js';
import {
  CALL_KEYS,
  CREDENTIAL_FIELD,
  type Step,
  byStep,
  target,
  argValues,
  findSource,
  objectsOf,
  sourceRecord,
  seenBefore,
  fieldList,
  firstDivergence,
  lostAfter,
  fullStepOf,
  splitAction,
} from './trajectory-steps.js';

/**
 * The simulated analyzer (ARCHITECTURE §6). It reads the prompts of src/prompts/analyzer-*.txt,
 * which carry trajectories rendered by src/optimize/render-trajectory.ts, and answers in the
 * JSON of src/optimize/analysis.ts, as a real analyzer must.
 */

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
  if (fullJson === undefined) return pageCutAt(action, compJson, s);
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
/** The arguments an action passed to the API it called (`call_api`'s inner `args`), else its own. */
function callArgs(action: string): Record<string, unknown> {
  const { args } = splitAction(action);
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return {};
  const inner = (args as Record<string, unknown>).args;
  return inner !== null && typeof inner === 'object' && !Array.isArray(inner)
    ? (inner as Record<string, unknown>)
    : (args as Record<string, unknown>);
}
/**
 * A list cut short, seen from the compressed observation alone: where the full observation is
 * longer than the prompt shows (the analyzer prompt cuts it), the items cannot be counted there,
 * but the compressed page holds fewer items than its own paging fields say (`page_limit: 20`,
 * `total_items: 54`, 10 items), as the agent itself reads a page (list-gaps.ts). Called only for
 * the step a lost value came from, so the cut is one the full run's later actions depended on.
 */
function pageCutAt(action: string, compJson: unknown, s: number): Fact | undefined {
  if (compJson === null || typeof compJson !== 'object' || Array.isArray(compJson))
    return undefined;
  const fields = compJson as Record<string, unknown>;
  const args = callArgs(action);
  const expected = expectedItems(fields, pageOf(args), args);
  if (expected === undefined) return undefined;
  for (const [key, v] of Object.entries(fields)) {
    if (!Array.isArray(v) || v.length >= expected) continue;
    return {
      fact: `the \`${key}\` list of step ${s} showed ${v.length} of the ${expected} items its own paging fields give the page in the compressed context (list items were cut)`,
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

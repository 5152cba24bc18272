import { BenchmarkError } from '../../errors.js';
import { computeChoice, decideBranch, itemsOfJson, type Item } from '../choice.js';
import type { ReferenceChoice, ReferenceDecision, ReferencePlan, ReferenceStep } from '../types.js';
import { followPath, parseRef, refsIn, resolveTemplates, type Need, type Scope } from './refs.js';
import { callApi, renderResponse, type ApiResponse } from './server.js';
import type { LoadedTask } from './task-loader.js';
import type { ReferenceStepSpec } from './task-schema.js';
import type { World } from './world.js';

export type ReplayedStep = {
  spec: ReferenceStepSpec;
  args: Record<string, unknown>;
  needs: Need[];
  choices: ReferenceChoice[];
  decision?: ReferenceDecision;
  response: ApiResponse;
};
export type Replay = { steps: ReplayedStep[]; scope: Scope };

/** What the first user message tells the agent about the supervisor (template root `supervisor`). */
export type SupervisorFacts = {
  name: string;
  first_name: string;
  last_name: string;
  email: string;
  phone_number: string;
};

export function supervisorFacts(world: World): SupervisorFacts {
  const s = world.supervisor;
  return {
    name: `${s.first_name} ${s.last_name}`,
    first_name: s.first_name,
    last_name: s.last_name,
    email: s.email,
    phone_number: s.phone_number,
  };
}

function dedupe(needs: Need[]): Need[] {
  const seen = new Set<string>();
  return needs.filter((n) => {
    const key = `${n.fromStep}|${n.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Where the agent learns which value a need is (issue 61): a selector whose values the
 * instruction states is the task's; one whose remaining values an API documentation response
 * read so far shows (an app's name, to pick its password) is the docs'; anything else (a file
 * name of a listing, a number read in an email) only an earlier response shows.
 */
function needSource(need: Need, instruction: string, docs: readonly string[]): Need {
  if (need.select?.kind !== 'match') return { ...need, in: 'observation' };
  const values = [need.select, ...(need.select.and ?? [])].map((c) => c.value);
  // As a word: "emailed" does not state the mail account.
  const unstated = values.filter((v) => !statesWord(instruction, v));
  if (unstated.length === 0) return { ...need, in: 'task' };
  const inDocs = unstated.every((v) => docs.some((d) => d.toLowerCase().includes(`"${v}"`)));
  return { ...need, in: inDocs ? 'docs' : 'observation' };
}

function statesWord(text: string, value: string): boolean {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`, 'i').test(text);
}

/** The step's declared `reads`, checked to appear verbatim in the response they come from. */
function readsOf(
  task: LoadedTask,
  spec: ReferenceStepSpec,
  scope: Scope,
  observations: string[],
): Need[] {
  return Object.entries(spec.reads ?? {}).flatMap(([stepId, values]) => {
    const from = scope.steps.get(stepId);
    if (!from) {
      throw new BenchmarkError(
        `${task.file}: step ${spec.id} reads from "${stepId}", which is not an earlier step`,
      );
    }
    return values.map((v) => {
      const value = String(v);
      if (!observations[from.index]?.includes(value)) {
        throw new BenchmarkError(
          `${task.file}: step ${spec.id} reads "${value}" from ${stepId}, but that response does not contain it`,
        );
      }
      return { value, fromStep: from.index };
    });
  });
}

/**
 * The step's declared `choose`, resolved and checked: over the items of the lists it reads (every
 * response so far of the same calls as its `from` steps: what an agent with the full context
 * sees of them), each choice gives its declared value.
 */
function choicesOf(
  task: LoadedTask,
  spec: ReferenceStepSpec,
  scope: Scope,
  seenItems: readonly { call: string; item: Item }[],
  callOf: ReadonlyMap<string, string>,
): ReferenceChoice[] {
  return (spec.choose ?? []).map((c, j) => {
    const field = `step ${spec.id} choose.${j}`;
    let value: string;
    try {
      value = String(resolveTemplates(c.value, scope).value);
    } catch (err) {
      throw new BenchmarkError(`${task.file}: ${field}.value: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const choice: ReferenceChoice = {
      value,
      from: c.from.map((id) => scope.steps.get(id)?.index ?? -1),
      op: c.op,
      ...(c.by !== undefined ? { by: c.by } : {}),
      ...(c.take !== undefined ? { take: c.take } : {}),
      ...(c.where !== undefined ? { where: c.where } : {}),
    };
    const calls = new Set(c.from.map((id) => callOf.get(id)));
    const seen = seenItems.filter((x) => calls.has(x.call)).map((x) => x.item);
    const got = computeChoice(choice, seen);
    if (got !== value) {
      throw new BenchmarkError(
        `${task.file}: ${field}: over the responses so far it gives "${got ?? '(nothing)'}", not the declared "${value}"; fix: adjust where/by/take or the value`,
      );
    }
    return choice;
  });
}

/**
 * The step's declared `decide`, checked: the record its argument points at gives the branch the
 * reference took.
 */
function decisionOf(
  task: LoadedTask,
  spec: ReferenceStepSpec,
  scope: Scope,
): ReferenceDecision | undefined {
  const d = spec.decide;
  if (d === undefined) return undefined;
  const where = `${task.file}: step ${spec.id} decide`;
  const [ref] = refsIn(spec.args[d.arg]);
  const [field, cond] = Object.entries(d.if)[0] ?? [];
  const [op, value] = Object.entries(cond ?? {})[0] ?? [];
  if (ref === undefined || field === undefined || op === undefined || value === undefined) {
    throw new BenchmarkError(
      `${where}: argument ${d.arg} must be a template like {{s9.items[0].id}}`,
    );
  }
  let record: unknown;
  try {
    const parent = parseRef(ref.source);
    record = followPath(scope.steps.get(parent.root)?.result, {
      ...parent,
      path: parent.path.slice(0, -1),
    });
  } catch (err) {
    throw new BenchmarkError(`${where}: ${(err as Error).message}`, { cause: err });
  }
  const decision: ReferenceDecision = {
    arg: d.arg,
    field,
    op: op as ReferenceDecision['op'],
    value,
    then: d.then,
    else: d.else,
  };
  const text = String((record as Record<string, unknown> | undefined)?.[field]);
  const branch = decideBranch(decision, text);
  if (branch !== spec.api) {
    throw new BenchmarkError(
      `${where}: ${field}=${text} gives ${branch ?? '(no branch)'}, but the step calls ${spec.api}; fix: the api or the condition`,
    );
  }
  return decision;
}

/** Run the reference solution in `world`; a failing step is a broken task, not an agent error. */
export function replayReference(task: LoadedTask, world: World): Replay {
  const scope: Scope = { steps: new Map(), supervisor: supervisorFacts(world) };
  const observations: string[] = [];
  const seenItems: { call: string; item: Item }[] = [];
  const callOf = new Map<string, string>();
  const steps = task.reference.map((spec, index) => {
    let resolved: { value: unknown; needs: Need[] };
    try {
      resolved = resolveTemplates(spec.args, scope);
    } catch (err) {
      throw new BenchmarkError(
        `${task.file}: reference step ${spec.id}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const args = resolved.value as Record<string, unknown>;
    const response = callApi(world, spec.app, spec.api, args);
    if (response.status !== 200) {
      throw new BenchmarkError(
        `${task.file}: reference step ${spec.id} (${spec.app}.${spec.api}) failed with ${response.status}: ${JSON.stringify(response.body)}`,
      );
    }
    const reads = readsOf(task, spec, scope, observations);
    const choices = choicesOf(task, spec, scope, seenItems, callOf);
    const decision = decisionOf(task, spec, scope);
    // A computed value is not copied: the choice, not its producer, stands for it.
    const chosen = new Set(choices.map((c) => c.value));
    const docs = observations.filter((_, i) => task.reference[i]?.app === 'api_docs');
    const needs = dedupe([...resolved.needs, ...reads])
      .filter((n) => !chosen.has(n.value))
      .map((n) => needSource(n, task.instruction, docs));
    scope.steps.set(spec.id, { index, result: response.body });
    observations.push(renderResponse(response));
    callOf.set(spec.id, `${spec.app}.${spec.api}`);
    for (const item of itemsOfJson(response.body)) {
      seenItems.push({ call: `${spec.app}.${spec.api}`, item });
    }
    return { spec, args, needs, choices, ...(decision ? { decision } : {}), response };
  });
  return { steps, scope };
}

/** The replay as the tool calls a perfect agent sends (ReferencePlan of src/bench/types.ts). */
export function toPlan(replay: Replay): ReferencePlan {
  return {
    steps: replay.steps.map(({ spec, args, needs, choices, decision }): ReferenceStep => {
      const extra = {
        ...(choices.length > 0 ? { choices } : {}),
        ...(decision ? { decision } : {}),
      };
      if (spec.app === 'supervisor' && spec.api === 'complete_task') {
        const answer =
          args.answer === undefined || args.answer === null ? null : String(args.answer);
        return {
          tool: 'complete_task',
          args: { answer, status: args.status ?? 'success' },
          needs,
          ...extra,
        };
      }
      return { tool: 'call_api', args: { app: spec.app, api: spec.api, args }, needs, ...extra };
    }),
  };
}

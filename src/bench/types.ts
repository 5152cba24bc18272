import { z } from 'zod';
import type { AgentEnvironment } from '../agent/index.js';

export const SplitSchema = z.string().min(1);

/** What `acon tasks list/show` prints and what runs record about a task. */
export const TaskInfoSchema = z.object({
  id: z.string(),
  split: z.string(),
  instruction: z.string(),
  apps: z.array(z.string()),
  difficulty: z.number().int().min(1).max(3),
  /** Number of calls in the reference solution (0 when the benchmark has none). */
  referenceLength: z.number().int().nonnegative(),
  /** The task pattern it was made from; held-out splits use patterns no other split has. */
  template: z.string().optional(),
  /**
   * A repeat of another task (optimize `--repeats`, issue 56): the same task run again with its
   * own sampling seed, stored under its own id (`<of>~r<index>`) so each repeat is its own
   * rollout and its own call-cache entries. The episode is the task `of`'s.
   */
  repeat: z.object({ of: z.string(), index: z.number().int().min(2) }).optional(),
});
export type TaskInfo = z.infer<typeof TaskInfoSchema>;

/** Which run and condition an episode belongs to (AppWorld names its output folder after them). */
export type EpisodeContext = { runId: string; condition: string };

/** One attempt at one task in a fresh world; the agent loop drives it as an `AgentEnvironment`. */
export interface Episode extends AgentEnvironment {
  readonly task: TaskInfo;
  close(): Promise<void>;
  /**
   * What the benchmark records about this episode beside the trajectory, stored with the
   * rollout (AppWorld: its experiment name and the steps whose execution timed out).
   */
  meta?(): Record<string, unknown>;
}

/** A condition on one field of an item: equal as text, a text prefix, or a text range. */
export type ChoiceCondition =
  string | number | { prefix: string } | { gte?: string | number; lte?: string | number };

/**
 * A value a step computes from data rather than copies: the largest file, the newest message, a
 * sum of amounts. Items are the flat records (an object's own scalar fields) the agent can see;
 * a candidate has the `by` and `take` fields and satisfies `where`; candidates count once per
 * distinct values of the fields the choice names.
 *
 * - `max` / `min`: with `take`, that field of the item with the largest / smallest `by`;
 *   without, the extreme `by` value itself.
 * - `sum`: the sum of `by` over the candidates (rounded to cents).
 * - `count`: the number of candidates.
 */
export type ReferenceChoice = {
  /** The value the reference solution uses, as text; the simulated agent computes its own. */
  value: string;
  /** 0-based plan steps whose results hold the items (re-fetched when no candidate is left). */
  from: number[];
  op: 'max' | 'min' | 'sum' | 'count';
  by?: string;
  take?: string;
  where?: Record<string, ChoiceCondition>;
};

/** How a copied value's record is found (src/bench/apptown/refs.ts `NeedSelect`). */
export type NeedSelect =
  | {
      kind: 'match';
      field: string;
      value: string;
      prefix: boolean;
      /** Further conditions the same item meets (`subject=…` beside `participants.name=…`). */
      and?: { field: string; value: string; prefix: boolean }[];
    }
  | { kind: 'index'; list: string; index: number }
  | { kind: 'root' };

/** A value a step copies from an earlier result (see ReferenceStep.needs). */
export type ReferenceNeed = {
  value: string;
  fromStep: number;
  /** The key the value is read from. */
  field?: string;
  /** How the record holding it is found among what the agent sees. */
  select?: NeedSelect;
  /** The argument key it is passed as. */
  arg?: string;
  /**
   * Where the agent learns which value it needs (issue 61): `task`, the instruction states the
   * selector's value ("my Road Trip playlist"); `docs`, the API documentation does (an app's
   * name); `observation`, only an earlier response shows it (a file name in a listing, a phone
   * number in an email's body), so the agent cannot name a value it no longer sees.
   * @default 'observation'
   */
  in?: NeedSource;
};

/** Where a need's value is stated to the agent (see ReferenceNeed.in). */
export type NeedSource = 'task' | 'docs' | 'observation';

/**
 * A declared decision (issue 22): which API a step calls depends on a field of the record its
 * argument `arg` points at, e.g. approve a payment request if its `amount` is under 50, else deny
 * it. The agent evaluates it on the record it can see.
 */
export type ReferenceDecision = {
  arg: string;
  field: string;
  op: 'lt' | 'lte' | 'gt' | 'gte' | 'eq';
  value: number | string;
  then: string;
  else: string;
};

/**
 * One reference step with its arguments resolved in a fresh world, and the facts (values from
 * earlier observations) its arguments use. The `sim` agent follows this plan (ARCHITECTURE §6).
 */
export type ReferenceStep = {
  tool: string;
  args: Record<string, unknown>;
  /** Values this step's arguments copy from earlier results, and which step produced each. */
  needs: ReferenceNeed[];
  /** Values this step's arguments compute from what the agent read (see ReferenceChoice). */
  choices?: ReferenceChoice[];
  /** The API this step calls depends on a field of a record (see ReferenceDecision). */
  decision?: ReferenceDecision;
};
export type ReferencePlan = {
  steps: ReferenceStep[];
  /**
   * Which simulated agent follows the plan: the default one guesses a fact it can no longer
   * see; the `qa` one submits an empty answer for a question whose answer is not in its context.
   */
  agent?: 'qa';
};

/** What the contrastive-pair rule sees of one rollout (utility phase, seed 003). */
export type PairSide = { success: boolean; score: number; steps: number };
export type PairKind = 'failure' | 'elongation';
/**
 * Decides whether (full-context rollout, compressed rollout) of one task is a contrastive pair
 * and of which kind; null: not a pair. `defaultPair` is the built-in rule (src/optimize/contrastive.ts),
 * so a benchmark can extend it instead of restating it.
 */
export type PairRule = (
  full: PairSide,
  compressed: PairSide,
  opts: { stepsRatio: number | null; defaultPair: (f: PairSide, c: PairSide) => PairKind | null },
) => PairKind | null;

export interface Benchmark {
  readonly name: string;
  listTasks(split?: string): Promise<TaskInfo[]>;
  getTask(id: string): Promise<TaskInfo>;
  start(taskId: string, context?: EpisodeContext): Promise<Episode>;
  /** Only benchmarks that ship reference solutions can drive the `sim` agent. */
  referencePlan?(taskId: string): Promise<ReferencePlan>;
  /** Checks that the environment is reachable before a run starts (fails fast with how to fix it). */
  connect?(): Promise<void>;
  /**
   * Does ahead of time the local work `start(taskId)` would do first (apptown: generate the
   * task's world and replay its reference solution), so a rollout that starts later finds it
   * done. Runs call it for upcoming tasks while rollouts wait on the model; failures are left
   * for `start` to report.
   */
  prepare?(taskId: string): Promise<void>;
  /**
   * The benchmark's own contrastive-pair rule (e.g. QA: "compressed F1 more than 0.05 below
   * full" is a failure although both runs "succeeded"). @default the success/steps rule of
   * src/optimize/contrastive.ts
   */
  pairRule?: PairRule;
  /**
   * What identifies a task's content, so a resumed run can tell that a task changed since it
   * started (apptown: the whole task file). @default a hash of getTask(id)
   */
  taskDigest?(id: string): Promise<string>;
  /** Problems found while loading (bad task files); the good tasks still load. */
  loadProblems?(): Promise<Error[]>;
  /**
   * Fills in what `listTasks` leaves out because only a server knows it (AppWorld: the
   * instruction, from `GET /tasks/{id}`); without a reachable server the tasks come back as
   * they were. For `acon tasks list/show`, not for planning runs.
   */
  describeTasks?(tasks: TaskInfo[]): Promise<TaskInfo[]>;
  close?(): Promise<void>;
}

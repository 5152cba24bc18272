import type { TaskInfo } from '../bench/index.js';
import { conditionMetrics, mean, totalInputTokens } from '../metrics/index.js';
import type { Condition } from '../experiment/index.js';
import { contrastivePairs, pairStepsRatio } from './contrastive.js';
import type { SelectionMode } from './params.js';
import { infraFailures } from '../store/index.js';
import { runJobsIn } from '../experiment/index.js';
import { coCanStillWin, referenceSet, utCanStillWin, type EvalProgress } from './selection.js';
import type { DecisionParams } from './decision-rule.js';
import { outcomesOf, raceCandidates, type TaskOutcome } from './race.js';
import { seededRandom } from '../seeded-random.js';
import { stageCondition, withKind, type PhaseContext, type Stage } from './stage.js';
import type { CandidateSlots } from './stage-candidates.js';
import { trainRows } from './stage-rollouts.js';

/** A condition's result on the selection split. */
export type Tally = {
  successes: number;
  tasks: number;
  /** Dropped by the phase's rule: it could no longer win. */
  dropped: boolean;
  accuracy: number;
  meanPeak: number;
  meanTotal: number;
  meanInput: number;
  meanSteps: number;
  cost: number;
};

type Live = EvalProgress & { dropped: boolean; byTask: Map<string, TaskOutcome> };

/**
 * Decides, before each candidate rollout, whether the candidate can still win (false: it is
 * dropped and its remaining rollouts are skipped). `live` holds every candidate's progress.
 */
type DropRule = (self: Live, live: Live[], n: number) => boolean;

export type StageEvaluation = {
  mode: SelectionMode;
  /** The tasks every candidate was compared on. */
  tasks: TaskInfo[];
  /** Selection tasks left out of the comparison: the infrastructure lost a rollout of them. */
  lost: TaskInfo[];
  parent: Tally;
  candidates: {
    slot: CandidateSlots[number];
    condition: Condition;
    tally: Tally;
    /** Why racing dropped it (race.ts), as its report line says; absent when it was not. */
    dropReason?: string;
  }[];
};

/**
 * The tasks candidates are evaluated on, and what the stage log says about them.
 * - `heldout`: the selection split (the parent is run on it too).
 * - `reference`, `reference-paired`: train tasks (paper v3 and its code): UT on D_cont, CO on
 *   D_succ, built from the stage's train rollouts; the parent's tally is those rollouts (the
 *   parent under the same condition on the same tasks: a rerun would send the same requests,
 *   which the call cache answers the same way).
 */
export function selectionTasks(pc: PhaseContext, stage: Stage): { tasks: TaskInfo[]; log: string } {
  if (pc.selection === 'heldout') {
    const split = pc.select[0]?.split ?? 'selection split';
    const repeats = pc.select.filter((t) => t.repeat).length;
    const units =
      repeats === 0
        ? `${pc.select.length} ${split} tasks`
        : `${pc.select.length - repeats} ${split} tasks × ${pc.select.length / (pc.select.length - repeats)} repeats`;
    return {
      tasks: pc.select,
      log: `${stage.name}: selection heldout: ${units}, against the parent`,
    };
  }
  const compressed = trainRows(pc, stage.compressed.label);
  const pairs =
    stage.phase === 'ut'
      ? contrastivePairs(trainRows(pc, stage.raw.label), compressed, {
          stepsRatio: pairStepsRatio(pc.env.config.optimize),
          rule: pc.env.bench.pairRule,
        }).map((p) => p.taskId)
      : [];
  const ids = new Set(referenceSet(stage.phase, compressed, pairs));
  const tasks = pc.train.filter((t) => ids.has(t.id));
  const set =
    stage.phase === 'co'
      ? 'D_succ (compressed succeeded)'
      : pairs.length > 0
        ? 'D_cont (full context succeeded, compressed failed)'
        : 'D_cont (no pair: every compressed failure)';
  return {
    tasks,
    log: `${stage.name}: selection ${pc.selection}: ${set}: ${tasks.length} of ${pc.train.length} train tasks`,
  };
}

/**
 * Stage 4, evaluation on the selection tasks (selectionTasks): the parent first, then the
 * valid candidates side by side: raced in rounds under the paired rule (race.ts), all of them
 * with `--no-racing`, or task by task with the early dropping of `reference` (selection.ts).
 * Checkpoint: the stored rollouts; a resumed run re-derives who was dropped.
 */
export async function evaluateCandidates(
  pc: PhaseContext,
  stage: Stage,
  slots: CandidateSlots,
): Promise<StageEvaluation> {
  const { tasks, log } = selectionTasks(pc, stage);
  pc.log(log);
  const parent = (
    await evaluate(pc, `${stage.name} select ${stage.parent.id}`, [stage.compressed], tasks)
  ).get(stage.compressed.label)!;
  const valid = validSlots(slots);
  const conditions = candidateConditions(pc, stage, slots);
  const n = tasks.length;
  const paired = pairedRule(pc);
  const label = `${stage.name} candidates`;
  let tallies: Map<string, Tally>;
  let drops: ReadonlyMap<string, string> = new Map();
  if (paired && pc.racing) {
    // Racing runs the candidates' tasks in a seeded order (the same for every candidate, so they
    // are compared on the same tasks at every point), in rounds (race.ts).
    const order = seededOrder(tasks, pc.env.config.seed, stage.name);
    const parentOutcomes = byTaskOf(pc, stage.compressed, tasks);
    const names = new Map(conditions.map((c, i) => [c.label, valid[i]!.id!]));
    drops = await raceCandidates(
      pc,
      stage,
      label,
      conditions,
      order,
      parentOutcomes,
      paired,
      names,
    );
    tallies = talliesOf(pc, conditions, tasks, (c) => drops.has(c.label));
  } else {
    const rule = paired ? undefined : legacyDropRule(pc, stage, parent, n);
    tallies = await evaluate(pc, label, conditions, tasks, rule);
  }
  const ev: StageEvaluation = {
    mode: pc.selection,
    tasks,
    lost: [],
    parent,
    candidates: valid.map((slot, i) => {
      const label = conditions[i]!.label;
      const dropReason = drops.get(label);
      return {
        slot,
        condition: conditions[i]!,
        tally: tallies.get(label)!,
        ...(dropReason && { dropReason }),
      };
    }),
  };
  return onCommonTasks(pc, stage, ev);
}

/**
 * The paired rule's settings when it decides this run's stages: null for `reference` (the
 * paper's rule, selection.ts) and for runs recorded before the rule existed.
 */
export function pairedRule(pc: PhaseContext): DecisionParams | null {
  return pc.selection === 'reference' ? null : pc.decision;
}

/** The seeded racing order of the selection tasks (a stage's own, reproducible). */
function seededOrder(tasks: TaskInfo[], seed: number, stageName: string): TaskInfo[] {
  const random = seededRandom(seed, 'racing', stageName);
  const out = [...tasks];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A condition's stored outcome on each of `tasks` (peak input tokens: the rule's token measure). */
export function byTaskOf(
  pc: PhaseContext,
  c: Condition,
  tasks: TaskInfo[],
): Map<string, TaskOutcome> {
  return outcomesOf(pc, c, new Set(tasks.map((t) => t.id)));
}

/**
 * The early dropping of `reference` and of runs recorded before the paired rule (selection.ts);
 * those runs' CO tolerance was the old `optimize.tolerance` default, 0.
 */
function legacyDropRule(pc: PhaseContext, stage: Stage, parent: Tally, n: number): DropRule {
  return pc.selection === 'reference'
    ? // UT must beat the parent (ties among candidates go to tokens); CO must keep its accuracy.
      (self, live) =>
        utCanStillWin(
          self,
          n,
          stage.phase === 'ut'
            ? Math.max(parent.successes + 1, bestFinishedSuccesses(live, n))
            : parent.successes,
        )
    : stage.phase === 'ut'
      ? (self, live) =>
          utCanStillWin(self, n, Math.max(parent.successes, bestFinishedSuccesses(live, n)))
      : coDropRule(parent, 0, n);
}

/**
 * When the infrastructure lost a selection rollout of the parent or of a candidate still in the
 * running, they are all compared on the tasks none of them lost (the same tasks for everyone,
 * as the rule assumes); candidates dropped by the rule keep their tally. `--resume` runs the
 * lost rollouts again and rechecks the choice on every task (stage-recheck.ts).
 */
function onCommonTasks(pc: PhaseContext, stage: Stage, ev: StageEvaluation): StageEvaluation {
  const running = [
    stage.compressed,
    ...ev.candidates.filter((c) => !c.tally.dropped).map((c) => c.condition),
  ];
  const labels = new Set(running.map((c) => c.label));
  const ids = new Set(ev.tasks.map((t) => t.id));
  const lostIds = new Set(
    infraFailures(pc.env.store, pc.runId)
      .filter((f) => labels.has(f.condition) && ids.has(f.taskId))
      .map((f) => f.taskId),
  );
  if (lostIds.size === 0) return ev;
  const tasks = ev.tasks.filter((t) => !lostIds.has(t.id));
  const common = new Set(tasks.map((t) => t.id));
  pc.log(
    `${stage.name}: the infrastructure lost ${lostIds.size} selection task(s); ` +
      `the parent and the candidates are compared on the other ${tasks.length}`,
  );
  return {
    ...ev,
    tasks,
    lost: ev.tasks.filter((t) => lostIds.has(t.id)),
    parent: tally(pc, stage.compressed, common),
    candidates: ev.candidates.map((c) =>
      c.tally.dropped ? c : { ...c, tally: tally(pc, c.condition, common) },
    ),
  };
}

function validSlots(slots: CandidateSlots): CandidateSlots {
  return slots.filter((s) => s.id !== null && s.reason === null);
}

/** The conditions the valid candidates are evaluated under, in slot order. */
export function candidateConditions(
  pc: PhaseContext,
  stage: Stage,
  slots: CandidateSlots,
): Condition[] {
  return validSlots(slots).map((s) =>
    stageCondition(
      withKind(stage.current, stage.kind, s.id, pc.guidelines),
      stage.kind,
      stage.isolated,
    ),
  );
}

function bestFinishedSuccesses(live: Live[], n: number): number {
  return Math.max(0, ...live.filter((t) => t.done === n && !t.dropped).map((t) => t.successes));
}

/**
 * CO: the accuracy threshold is the parent's accuracy minus the tolerance; the token bar is the
 * parent's mean peak, or the lowest mean peak of a finished candidate that met the threshold.
 */
function coDropRule(parent: Tally, tolerance: number, n: number): DropRule {
  const minSuccesses = Math.ceil((parent.accuracy - tolerance) * n - 1e-9);
  return (self, live) => {
    const finishedPeaks = live
      .filter((t) => t.done === n && !t.dropped && t.successes >= minSuccesses)
      .map((t) => t.peakSum / n);
    return coCanStillWin(self, n, {
      minSuccesses,
      maxMeanPeak: Math.min(parent.meanPeak, ...finishedPeaks),
    });
  };
}

async function evaluate(
  pc: PhaseContext,
  label: string,
  conditions: Condition[],
  tasks: TaskInfo[],
  canStillWin?: DropRule,
): Promise<Map<string, Tally>> {
  const { store } = pc.env;
  const n = tasks.length;
  const selectIds = new Set(tasks.map((t) => t.id));
  const rowsOf = (c: Condition) =>
    store.rollouts(pc.runId, c.label).filter((r) => selectIds.has(r.task_id));
  const live = new Map<string, Live>();
  for (const c of conditions) {
    const stored = rowsOf(c);
    live.set(c.label, {
      successes: stored.filter((r) => r.success).length,
      done: stored.length,
      peakSum: stored.reduce((a, r) => a + r.peak_input_tokens, 0),
      dropped: false,
      byTask: new Map(
        stored.map((r) => [r.task_id, { success: r.success, tokens: r.peak_input_tokens }]),
      ),
    });
  }
  const jobs = tasks.flatMap((task) => conditions.map((condition) => ({ condition, task })));
  await runJobsIn(pc.env, {
    runId: pc.runId,
    jobs,
    shouldRun: (job) => {
      const t = live.get(job.condition.label)!;
      if (t.dropped || !canStillWin) return !t.dropped;
      if (!canStillWin(t, [...live.values()], n)) {
        t.dropped = true;
        pc.log(
          `${label}: ${job.condition.label} dropped early (${t.successes}/${t.done} so far): it can no longer win`,
        );
      }
      return !t.dropped;
    },
    onRollout: (o, done, total) => {
      if (o) {
        const t = live.get(o.job.condition.label)!;
        t.done += 1;
        t.peakSum += o.peakInputTokens;
        if (o.success) t.successes += 1;
        t.byTask.set(o.job.task.id, { success: o.success, tokens: o.peakInputTokens });
      }
      pc.progress(label, done, total, o);
    },
  });
  return talliesOf(pc, conditions, tasks, (c) => live.get(c.label)!.dropped);
}

/**
 * Each condition's stored rollouts on `tasks`, tallied; one is dropped when `dropped` says so or
 * when it has fewer than the tasks the infrastructure did not lose of it.
 */
function talliesOf(
  pc: PhaseContext,
  conditions: Condition[],
  tasks: TaskInfo[],
  dropped: (c: Condition) => boolean,
): Map<string, Tally> {
  const selectIds = new Set(tasks.map((t) => t.id));
  const lost = infraFailures(pc.env.store, pc.runId).filter((f) => selectIds.has(f.taskId));
  const out = new Map<string, Tally>();
  for (const c of conditions) {
    const missing = lost.filter((f) => f.condition === c.label).length;
    const t = tally(pc, c, selectIds);
    out.set(c.label, { ...t, dropped: dropped(c) || t.tasks + missing < tasks.length });
  }
  return out;
}

/** A condition's stored rollouts on `taskIds`, tallied. */
function tally(pc: PhaseContext, c: Condition, taskIds: Set<string>): Tally {
  const rows = pc.env.store.rollouts(pc.runId, c.label).filter((r) => taskIds.has(r.task_id));
  const m = conditionMetrics(
    c.label,
    rows.map((r) => r.metrics),
    { seed: pc.env.config.seed },
  );
  return {
    successes: rows.filter((r) => r.success).length,
    tasks: rows.length,
    dropped: false,
    accuracy: m.accuracy,
    meanPeak: m.meanPeakTokens,
    meanTotal: m.meanTotalTokens,
    meanInput: mean(rows.map((r) => totalInputTokens(r.metrics))),
    meanSteps: m.meanSteps,
    cost: m.costPerTask,
  };
}

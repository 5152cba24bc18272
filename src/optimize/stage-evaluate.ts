import type { TaskInfo } from '../bench/types.js';
import { conditionMetrics, mean, totalInputTokens } from '../report/metrics.js';
import type { Condition } from './condition.js';
import { contrastivePairs, pairStepsRatio } from './contrastive.js';
import type { SelectionMode } from './params.js';
import { runRollouts } from './rollouts.js';
import { coCanStillWin, referenceSet, utCanStillWin, type EvalProgress } from './selection.js';
import { stageCondition, withKind, type PhaseContext, type Stage } from './stage.js';
import type { CandidateSlots } from './stage-candidates.js';
import { trainRows } from './stage-rollouts.js';

/** A condition's result on the selection split. */
export type Tally = {
  successes: number;
  tasks: number;
  dropped: boolean;
  accuracy: number;
  meanPeak: number;
  meanTotal: number;
  meanInput: number;
  meanSteps: number;
  cost: number;
};

type Live = EvalProgress & { dropped: boolean };

/**
 * Decides, before each candidate rollout, whether the candidate can still win (false: it is
 * dropped and its remaining rollouts are skipped). `live` holds every candidate's progress.
 */
type DropRule = (self: Live, live: Live[], n: number) => boolean;

export type StageEvaluation = {
  mode: SelectionMode;
  /** The tasks every candidate was evaluated on. */
  tasks: TaskInfo[];
  parent: Tally;
  candidates: { slot: CandidateSlots[number]; condition: Condition; tally: Tally }[];
};

/**
 * The tasks candidates are evaluated on, and what the stage log says about them.
 * - `heldout`: the selection split (the parent is run on it too).
 * - `reference`: train tasks (paper v3 and its code): UT on D_cont, CO on D_succ, built from the
 *   stage's train rollouts; the parent's tally is those rollouts (nothing is run again).
 */
export function selectionTasks(pc: PhaseContext, stage: Stage): { tasks: TaskInfo[]; log: string } {
  if (pc.selection === 'heldout') {
    const split = pc.select[0]?.split ?? 'selection split';
    return {
      tasks: pc.select,
      log: `${stage.name}: selection heldout: ${pc.select.length} ${split} tasks, against the parent`,
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
    log: `${stage.name}: selection reference: ${set}: ${tasks.length} of ${pc.train.length} train tasks`,
  };
}

/**
 * Stage 4, evaluation on the selection tasks (selectionTasks): the parent first, then the
 * valid candidates side by side, interleaved task by task, with the phase's early-dropping rule
 * (selection.ts). Checkpoint: the stored rollouts; a resumed run re-derives who was dropped.
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
  const valid = slots.filter((s) => s.id !== null && s.reason === null);
  const conditions = valid.map((s) =>
    stageCondition(
      withKind(stage.current, stage.kind, s.id, pc.guidelines),
      stage.kind,
      stage.isolated,
    ),
  );
  const n = tasks.length;
  const rule: DropRule =
    pc.selection === 'reference'
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
        : coDropRule(parent, pc.env.config.optimize.tolerance, n);
  const tallies = await evaluate(pc, `${stage.name} candidates`, conditions, tasks, rule);
  return {
    mode: pc.selection,
    tasks,
    parent,
    candidates: valid.map((slot, i) => ({
      slot,
      condition: conditions[i]!,
      tally: tallies.get(conditions[i]!.label)!,
    })),
  };
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
    });
  }
  const jobs = tasks.flatMap((task) => conditions.map((condition) => ({ condition, task })));
  await runRollouts({
    runId: pc.runId,
    bench: pc.env.bench,
    jobs,
    llm: pc.env.llm,
    store,
    config: pc.env.config,
    signal: pc.env.abort.signal,
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
      }
      pc.progress(label, done, total, o);
    },
  });
  const out = new Map<string, Tally>();
  for (const c of conditions) {
    const rows = rowsOf(c);
    const m = conditionMetrics(
      c.label,
      rows.map((r) => r.metrics),
      { seed: pc.env.config.seed },
    );
    out.set(c.label, {
      successes: rows.filter((r) => r.success).length,
      tasks: rows.length,
      dropped: live.get(c.label)!.dropped || rows.length < n,
      accuracy: m.accuracy,
      meanPeak: m.meanPeakTokens,
      meanTotal: m.meanTotalTokens,
      meanInput: mean(rows.map((r) => totalInputTokens(r.metrics))),
      meanSteps: m.meanSteps,
      cost: m.costPerTask,
    });
  }
  return out;
}

import type { GuidelinePair } from '../domain/index.js';
import type { Warn } from '../errors.js';
import { summarizeRun } from '../metrics/index.js';
import {
  ConditionMetricsSchema,
  GuidelinePairSchema,
  type ConditionMetrics,
  ProvenanceSchema,
} from '../domain/index.js';
import { z } from 'zod';
import { hasScenarios, type TaskInfo } from '../bench/index.js';
import type { RunEnv } from '../experiment/index.js';
import { selectionName, type OptimizeParams } from './params.js';
import { groupedSelection, unseenPatterns } from './grouped-split.js';
import { runPhase } from './phase.js';
import { repeatUnits } from './repeats.js';
import { pairIds, promoteOnce, runGuidelineFiles, startingPair } from './run-guidelines.js';
import { StageResultSchema, type StageResult } from './stage.js';
import {
  OptimizePlanSchema,
  planOptimize,
  SHARED_TASKS_OPTIONS,
  sharedTasksWarning,
  stagesOf,
  type OptimizePlan,
} from './plan.js';
import { finalCondition, finalRows } from './final-rows.js';
import { PairCheckSchema } from './pair-check.js';
import { checkPair } from './stage-pair.js';
import { everyPair, runJobsIn } from '../experiment/index.js';
import { inRun } from '../experiment/index.js';
import { selectTasks } from '../experiment/index.js';
import { roleTokenCounter, tokenizerProvenance } from '../llm/index.js';

/** `acon optimize --json` (`acon schema optimize`). */
export const OptimizeResultSchema = z.object({
  runId: z.string(),
  plan: OptimizePlanSchema,
  stages: z.array(StageResultSchema),
  /** The guidelines the run started from, the utility phase's and the final ones. */
  start: GuidelinePairSchema,
  ut: GuidelinePairSchema,
  final: GuidelinePairSchema,
  /** The condition the final guidelines are deployed as (one compressor alone when one was targeted). */
  finalCondition: z.string(),
  /** Rows per split (final-rows.ts): the baselines, then v0, UT and UTCO per compressor scope. */
  tables: z.array(
    z.object({
      split: z.string(),
      provenance: ProvenanceSchema,
      rows: z.array(
        ConditionMetricsSchema.extend({
          /** The row's name in the table (`UT obs`, or `A=B` where a phase accepted nothing). */
          version: z.string(),
          /** Why rows were merged, e.g. which phase accepted nothing. */
          note: z.string().optional(),
        }),
      ),
    }),
  ),
  /**
   * The pair checked together on the selection split (stage-pair.ts) and the pair it chose: what
   * a full run makes active. Runs recorded before the check: absent.
   */
  pairCheck: PairCheckSchema.optional(),
  /** Evaluation tasks that use a task pattern no selection task uses (grouped-split.ts). */
  evalUnseen: z.object({ unseen: z.number().int(), total: z.number().int() }).optional(),
  chosen: GuidelinePairSchema.optional(),
  /** Versions made active at the end (empty with --no-promote, or when v0 stays). */
  promoted: z.array(z.string()),
  files: z.array(z.string()),
});
export type OptimizeResult = z.infer<typeof OptimizeResultSchema>;

export type OptimizeHooks = {
  log?: (line: string) => void;
  progress?: (
    label: string,
    done: number,
    total: number,
    outcome?: { success: boolean } | null,
  ) => void;
  /** One line the user must see even with --json (stderr): the run goes on. */
  warn?: Warn;
  /** Shown the plan before anything runs; return false to stop (used by --dry-run). */
  onPlan?: (plan: OptimizePlan) => boolean | Promise<boolean>;
};

/**
 * `acon optimize` (seed 003): utility phase, then compression phase, for each targeted
 * guideline kind, then v0 vs UT vs UTCO on the selection and evaluation splits. Everything is
 * stored in one run; --resume continues it from its checkpoints.
 */
export async function optimize(
  env: RunEnv,
  params: OptimizeParams,
  opts: {
    resume?: string;
    command: string;
    /**
     * Stop cleanly (status `budget`, resumable) rather than start rollout N+1 of this run.
     * @default config.optimize.max_rollouts
     */
    maxRollouts?: number | null;
  } & OptimizeHooks,
): Promise<OptimizeResult | { plan: OptimizePlan; dryRun: true }> {
  const tasks = await optimizeTasks(env, params);
  const maxRollouts =
    opts.maxRollouts === undefined ? env.config.optimize.max_rollouts : opts.maxRollouts;
  const plan = planOptimize(params, env.config, tasks, env.simulated, maxRollouts);
  const shared = sharedTasksWarning(params, tasks);
  if (shared) opts.warn?.(shared, SHARED_TASKS_OPTIONS);
  // Planning reads task lists only; the environment is contacted once the run really starts.
  if (opts.onPlan && !(await opts.onPlan(plan))) return { plan, dryRun: true };
  await env.bench.connect?.();

  return inRun(
    env,
    {
      resume: opts.resume,
      kind: 'optimize',
      command: opts.command,
      bench: params.bench,
      params,
      resumeWith: 'acon optimize',
    },
    async (runId) => {
      const run: OptimizeRun = {
        env: { ...env, maxRollouts, ...(opts.warn ? { warn: opts.warn } : {}) },
        params,
        runId,
        tasks,
        selectUnits: repeatUnits(tasks.select, params.repeats),
        log: opts.log ?? (() => {}),
        progress: opts.progress ?? (() => {}),
      };
      const { start, ut, pair, stages } = await runStages(run);
      const { check, chosen } = await checkPair({ ...run, select: run.selectUnits }, start, pair);
      const tables = await finalTables(run, finalRows(params, start, ut, pair));
      const teacher = await teacherRollouts(run, pair);
      const result: OptimizeResult = {
        runId,
        plan,
        stages,
        start,
        ut,
        final: pair,
        finalCondition: teacher.label,
        tables,
        pairCheck: check,
        chosen,
        evalUnseen: unseenPatterns(tasks.eval, tasks.select),
        promoted: promoteFinal(run, start, chosen),
        files: runGuidelineFiles(env, runId),
      };
      env.store.setRunStatus(runId, 'finished', {
        stages,
        tables,
        ut: pairIds(ut),
        final: pairIds(pair),
        pairCheck: check,
        chosen: pairIds(chosen),
      });
      return result;
    },
  );
}

type SplitTasks = Awaited<ReturnType<typeof optimizeTasks>>;

/** What every step of a started optimize run needs. */
type OptimizeRun = {
  env: RunEnv;
  params: OptimizeParams;
  runId: string;
  tasks: SplitTasks;
  /** What candidates and the pair check are judged on: every repeat of every selection task (repeats.ts). */
  selectUnits: TaskInfo[];
  log: (line: string) => void;
  progress: NonNullable<OptimizeHooks['progress']>;
};

/** The train, selection and evaluation tasks, each cut to --max-tasks and its own limit. */
async function optimizeTasks(env: RunEnv, params: OptimizeParams) {
  const limit = <T>(xs: T[], n: number | null = null) => {
    const max = Math.min(params.maxTasks ?? Infinity, n ?? Infinity);
    return Number.isFinite(max) ? xs.slice(0, max) : xs;
  };
  let train = await selectTasks(env, params.trainSplit, null);
  let select = await selectTasks(env, params.selectSplit, null);
  if (params.selectFrom === 'grouped') {
    const ids = new Set(train.map((t) => t.id));
    const pool = [...train, ...select.filter((t) => !ids.has(t.id))];
    const size = Math.min(params.maxTasks ?? Infinity, params.selectTasks ?? select.length);
    ({ train, select } = groupedSelection(pool, size, env.config.seed));
  }
  return {
    train: limit(train, params.trainTasks),
    select: limit(select, params.selectTasks),
    eval: limit(await selectTasks(env, params.evalSplit, null)),
  };
}

/**
 * The phases stage by stage (phase.ts), from the run's starting pair (recorded on the first
 * attempt, so a resume starts from the same versions): the UT pair and the final one.
 */
async function runStages(run: OptimizeRun) {
  const { env, params, runId } = run;
  const start = await startingPair(env, runId, params.guidelines);
  const pc = {
    env,
    runId,
    guidelines: env.guidelines,
    train: run.tasks.train,
    select: run.selectUnits,
    candidates: params.candidates,
    selection: params.selection,
    decision: params.decision,
    racing: params.racing,
    log: run.log,
    progress: run.progress,
  };
  let pair: GuidelinePair = start;
  let ut: GuidelinePair = start;
  const stages: StageResult[] = [];
  for (const s of stagesOf(params)) {
    if (s.phase === 'co' && !stages.some((r) => r.stage.startsWith('co'))) ut = pair;
    const out = await runPhase(pc, s.phase, s.kind, s.round, pair);
    pair = out.pair;
    stages.push(out.result);
  }
  if (!params.phases.includes('co')) ut = pair;
  return { start, ut, pair, stages };
}

/** The final comparison on the selection and evaluation splits (final-rows.ts). */
async function finalTables(
  run: OptimizeRun,
  rows: ReturnType<typeof finalRows>,
): Promise<OptimizeResult['tables']> {
  const { env, params, runId } = run;
  const conditions = rows.map((r) => r.condition);
  const tables: OptimizeResult['tables'] = [];
  // One counter for the final tables, so their provenance says how many counts a server missed.
  const tokens = roleTokenCounter(env.config, 'agent', env.llm);
  for (const [split, list] of [
    [selectionName(params), run.tasks.select],
    [params.evalSplit, run.tasks.eval],
  ] as const) {
    run.log(`final: ${rows.map((v) => v.version).join(', ')} on ${split}`);
    await runJobsIn(env, {
      runId,
      tokens,
      jobs: everyPair(conditions, list),
      onRollout: (o, done, total) => run.progress(`final ${split}`, done, total, o),
    });
    const ids = new Set(list.map((t) => t.id));
    const metrics = summarizeRunOn(
      env,
      runId,
      conditions.map((c) => c.label),
      ids,
    );
    const byLabel = new Map(metrics.map((m) => [m.condition, m]));
    tables.push({
      split,
      provenance: {
        runId,
        bench: params.bench,
        split,
        provider: env.provider,
        models: env.models,
        simulated: env.simulated,
        ...tokenizerProvenance(env.config, 'agent', tokens),
      },
      rows: rows.map((r) => ({
        ...byLabel.get(r.condition.label)!,
        version: r.version,
        ...(r.note ? { note: r.note } : {}),
      })),
    });
  }
  return tables;
}

/**
 * The teacher's train-split rollouts with the final guidelines, deployed as optimized (only the
 * optimized compressor on when one was targeted): the default set of `acon export`.
 */
async function teacherRollouts(run: OptimizeRun, pair: GuidelinePair) {
  const { env, params } = run;
  const teacher = finalCondition(params, pair);
  run.log(`teacher: ${teacher.label} on ${params.trainSplit} (the default set of acon export)`);
  await runJobsIn(env, {
    runId: run.runId,
    jobs: everyPair([teacher], run.tasks.train),
    onRollout: (o, done, total) => run.progress(`teacher ${params.trainSplit}`, done, total, o),
  });
  return teacher;
}

/**
 * Makes the chosen pair active (once: recorded in the run), unless --no-promote or the pair check
 * kept v0: then nothing is promoted.
 */
function promoteFinal(run: OptimizeRun, start: GuidelinePair, pair: GuidelinePair): string[] {
  if (!run.params.promote) return [];
  if (pair.obs.id === start.obs.id && pair.hist.id === start.hist.id) return [];
  return promoteOnce(run.env, run.runId, pair);
}

/** Condition metrics restricted to one split's tasks (a run holds several splits). */
function summarizeRunOn(
  env: RunEnv,
  runId: string,
  labels: string[],
  taskIds: Set<string>,
): ConditionMetrics[] {
  return summarizeRun(
    env.store,
    runId,
    labels,
    env.config.seed,
    'raw',
    taskIds,
    hasScenarios(env.bench.name),
  );
}

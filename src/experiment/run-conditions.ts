import { z } from 'zod';
import type { Warn } from '../errors.js';
import { StrategyNameSchema, type StrategyName } from '../agent/index.js';
import { hasScenarios, tasksOfSplit, type TaskInfo } from '../bench/index.js';
import type { Config } from '../config/index.js';
import { estimateCostUsd, meanStepsOf, rolloutCalls, type CallEstimate } from './estimate.js';
import type { RunEnv } from './env.js';
import {
  foreignBenchWarning,
  resolveGuidelinePair,
  type GuidelineStore,
} from '../guidelines/index.js';
import { ConditionMetricsSchema, ProvenanceSchema, type Provenance } from '../domain/index.js';
import { summarizeRun, conditionsVerdict } from '../metrics/index.js';
import { makeCondition, type Condition } from './condition.js';
import { InfraFailureSchema } from '../domain/index.js';
import { infraFailures } from '../store/index.js';
import { everyPair, runJobsIn } from './run-jobs.js';
import { roleTokenCounter, tokenizerProvenance, type TokenCounter } from '../llm/index.js';
import { startRun, stoppedRun } from './run-lifecycle.js';

/** What `acon run`/`compare` ran with; stored with the run so --resume can continue it. */
export const RunParamsSchema = z.object({
  bench: z.string(),
  split: z.string(),
  strategies: z.array(StrategyNameSchema).min(1),
  tasks: z.array(z.string()).nullable(),
  guidelines: z.string().nullable(),
  /** Only the first N tasks of the split (`--max-tasks`, quick trials); null or absent: all. */
  maxTasks: z.number().int().min(1).nullable().optional(),
  /** The exact tasks the run covers (recorded when it starts; --resume runs these). */
  taskIds: z.array(z.string()).optional(),
  /** The versions `guidelines` resolved to when the run started, e.g. obs-0002,hist-0000. */
  guidelineVersions: z.string().optional(),
});
export type RunParams = z.infer<typeof RunParamsSchema>;

/** What `acon run`/`compare` return and print with `--json` (`acon schema compare`). */
export const RunConditionsResultSchema = z.object({
  provenance: ProvenanceSchema,
  conditions: z.array(ConditionMetricsSchema),
  /** Warnings printed on stderr too, e.g. guidelines learned on another benchmark. */
  warnings: z.array(z.string()).default([]),
  /** One line naming the Pareto-optimal conditions and how acon compares with raw (verdict.ts). */
  verdict: z.string().default(''),
  /** Rollouts the infrastructure failed: not in the accuracies above; --resume runs them again. */
  infraFailures: z.array(InfraFailureSchema).default([]),
});
export type RunConditionsResult = z.infer<typeof RunConditionsResultSchema>;

/** What `acon run`/`compare` will run and roughly cost, shown before anything starts. */
export type RunEstimate = {
  rollouts: number;
  calls: Pick<CallEstimate, 'agent' | 'compressor'>;
  /** USD at most (estimate.ts, the cost model of optimize's plan); 0 when simulated. */
  costUsd: number;
  simulated: boolean;
};

/** Strategies that call a compressor LLM (summary folds history with the hist compressor). */
const COMPRESSING: readonly StrategyName[] = ['summary', 'naive', 'acon'];

/** The estimate of running `strategies` on `tasks` (every condition on every task). */
export function estimateRun(
  strategies: StrategyName[],
  tasks: TaskInfo[],
  config: Config,
  simulated: boolean,
): RunEstimate {
  const rollouts = strategies.length * tasks.length;
  const compressing = strategies.filter((s) => COMPRESSING.includes(s)).length * tasks.length;
  const calls = rolloutCalls(rollouts, compressing, meanStepsOf(tasks));
  const costUsd = simulated ? 0 : estimateCostUsd({ ...calls, analyzer: 0, updater: 0 }, config);
  return { rollouts, calls, costUsd, simulated };
}

export function formatRunEstimate(e: RunEstimate): string {
  return (
    `estimate: ${e.rollouts} rollouts · LLM calls: agent ${e.calls.agent}, compressors ` +
    `${e.calls.compressor} · cost ~$${e.costUsd.toFixed(2)} at most (list prices, no cache hits)`
  );
}

/** Tasks of a split, narrowed to `ids` when given (an unknown split or id exits 2 listing the valid ones). */
export async function selectTasks(
  session: Pick<RunEnv, 'bench'>,
  split: string,
  ids: string[] | null,
): Promise<TaskInfo[]> {
  return tasksOfSplit(session.bench, split, ids);
}

/** The conditions for strategy names: naive uses the v0 guidelines, acon the given or active ones. */
export async function conditionsFor(
  strategies: StrategyName[],
  guidelines: string | null,
  store: GuidelineStore,
): Promise<Condition[]> {
  const out: Condition[] = [];
  for (const s of strategies) {
    if (s === 'naive')
      out.push(makeCondition('naive', await resolveGuidelinePair('obs@0,hist@0', store)));
    else if (s === 'acon')
      out.push(makeCondition('acon', await resolveGuidelinePair(guidelines, store)));
    else out.push(makeCondition(s));
  }
  return out;
}

export type RunConditionsOptions = {
  session: RunEnv;
  kind: 'run' | 'compare';
  params: RunParams;
  resume?: string;
  /** One line for the user (stderr), e.g. guidelines learned on another benchmark. */
  warn?: Warn;
  /**
   * Shown the estimate before the environment is contacted or anything is stored; throwing
   * stops the run there (a paid run refused leaves nothing in the database).
   */
  onEstimate?: (estimate: RunEstimate) => void | Promise<void>;
  command: string;
  concurrency?: number;
  onProgress?: (
    done: number,
    total: number,
    info: string,
    outcome?: { success: boolean } | null,
  ) => void;
};

/**
 * `acon run` and `acon compare`: every condition on every task, stored as one run, then the
 * condition table recomputed from the stored rollouts. A resumed run keeps its id and skips
 * what is stored.
 */
export async function runConditions(opts: RunConditionsOptions): Promise<RunConditionsResult> {
  const { session, params } = opts;
  const { store, config } = session;
  const { conditions, tasks, acon, warning } = await planConditions(opts);
  await opts.onEstimate?.(estimateRun(params.strategies, tasks, config, session.simulated));
  await session.bench.connect?.();
  const runId = startRun(session, {
    resume: opts.resume,
    kind: opts.kind,
    command: opts.command,
    bench: params.bench,
    params: {
      ...params,
      taskIds: tasks.map((t) => t.id),
      ...(acon?.guidelines
        ? { guidelineVersions: `${acon.guidelines.obs.id},${acon.guidelines.hist.id}` }
        : {}),
    } satisfies RunParams,
  });
  // One counter for the run, so its provenance can say how many counts a server did not give.
  const tokens = roleTokenCounter(config, 'agent', session.llm);
  try {
    await runJobsIn(session, {
      runId,
      tokens,
      jobs: everyPair(conditions, tasks),
      concurrency: opts.concurrency,
      ...(opts.warn ? { warn: opts.warn } : {}),
      onRollout: (o, done, total) =>
        opts.onProgress?.(done, total, o ? `${o.job.condition.label} ${o.job.task.id}` : '', o),
    });
  } catch (err) {
    throw stoppedRun(store, runId, err, `acon ${opts.kind}`);
  }
  return finishConditions(opts, runId, conditions, warning, tokens);
}

/**
 * The conditions and tasks of the run, and the warning about guidelines learned on another
 * benchmark. A resumed run uses the versions and tasks it recorded, not what `active` or the
 * split hold today.
 */
async function planConditions(opts: RunConditionsOptions) {
  const { session, params } = opts;
  const conditions = await conditionsFor(
    params.strategies,
    params.guidelineVersions ?? params.guidelines,
    session.guidelines,
  );
  const selected = await selectTasks(session, params.split, params.taskIds ?? params.tasks);
  // A resumed run's recorded task list is already cut to --max-tasks.
  const tasks = params.taskIds ? selected : selected.slice(0, params.maxTasks ?? undefined);
  const acon = conditions.find((c) => c.strategy === 'acon');
  const warning = acon?.guidelines
    ? foreignBenchWarning(
        session.guidelines,
        [acon.guidelines.obs.id, acon.guidelines.hist.id],
        params.bench,
      )
    : null;
  if (warning) opts.warn?.(warning);
  return { conditions, tasks, acon, warning };
}

/** The condition table recomputed from the stored rollouts; the run is marked finished. */
function finishConditions(
  opts: RunConditionsOptions,
  runId: string,
  conditions: Condition[],
  warning: string | null,
  tokens: TokenCounter,
): RunConditionsResult {
  const { session, params } = opts;
  const { store } = session;
  const metrics = summarizeRun(
    store,
    runId,
    conditions.map((c) => c.label),
    session.config.seed,
    'raw',
    undefined,
    hasScenarios(params.bench),
  );
  const provenance: Provenance = {
    runId,
    bench: params.bench,
    split: params.split,
    provider: session.provider,
    models: session.models,
    simulated: session.simulated,
    ...tokenizerProvenance(session.config, 'agent', tokens),
  };
  store.setRunStatus(runId, 'finished', { provenance, conditions: metrics });
  return {
    provenance,
    conditions: metrics,
    warnings: warning ? [warning] : [],
    verdict: conditionsVerdict(params.split, metrics) + estimatesNote(provenance),
    infraFailures: infraFailures(store, runId),
  };
}

/**
 * The verdict's note when a server tokenizer's counts were not all the server's: thresholds and
 * peaks then rest partly on o200k estimates, which a reader comparing peaks must know.
 */
function estimatesNote(p: Provenance): string {
  const e = p.tokenizerEstimates;
  if (!e || e.estimated === 0) return '';
  return ` Server tokenizer: ${e.estimated} of ${e.counted} counts estimated in o200k (the server had not counted them), so thresholds and peaks are partly estimates.`;
}

import { z } from 'zod';
import type { TaskInfo } from '../bench/index.js';
import type { Config } from '../config/index.js';
import { estimateCostUsd, meanStepsOf, rolloutCalls } from '../experiment/index.js';
import { BASELINES } from './final-rows.js';
import { pairOptionsAtMost } from './stage-pair.js';
import { kindsOf, type OptimizeParams } from './params.js';

/** What an optimize run will do and roughly cost, printed before it starts (`--dry-run`: only this). */
export const OptimizePlanSchema = z.object({
  stages: z.array(z.string()),
  /** Rollouts at most (no cache hits, no early drops). */
  rollouts: z.number().int(),
  calls: z.object({
    agent: z.number(),
    compressor: z.number(),
    analyzer: z.number(),
    updater: z.number(),
  }),
  /** Estimated USD at most, from the configured models' prices (0 under the sim provider). */
  costUsd: z.number(),
  simulated: z.boolean(),
  tasks: z.object({ train: z.number().int(), select: z.number().int(), eval: z.number().int() }),
  /** Runs of each selection task (`--repeats`); runs planned before it: 1. */
  repeats: z.number().int().min(1).default(1),
  /** How candidates are accepted, in words (decisionRuleLine); runs planned before it: none. */
  rule: z.string().default(''),
  /** `--max-rollouts` (null: no limit); runs planned before it: none. */
  maxRollouts: z.number().int().min(1).nullable().default(null),
});
export type OptimizePlan = z.infer<typeof OptimizePlanSchema>;

/** Stages in order: every kind's utility phase first, then every kind's compression phase. */
export function stagesOf(
  params: OptimizeParams,
): { phase: 'ut' | 'co'; kind: 'obs' | 'hist'; round: number }[] {
  const out: { phase: 'ut' | 'co'; kind: 'obs' | 'hist'; round: number }[] = [];
  for (const phase of (['ut', 'co'] as const).filter((p) => params.phases.includes(p))) {
    for (const kind of kindsOf(params.target)) {
      for (let round = 1; round <= params.rounds; round++) out.push({ phase, kind, round });
    }
  }
  return out;
}

/**
 * The split discipline (ARCHITECTURE §4) needs different tasks for training, selection and the
 * final table. Tasks named with --tasks (AppWorld without APPWORLD_ROOT) stand for every split, so
 * the same tasks would train, select and be "held out" (issue #24): this says so, naming how many.
 */
/** The benchmark options {@link sharedTasksWarning} names (the CLI's --tasks and --task-file). */
export const SHARED_TASKS_OPTIONS: readonly string[] = ['taskIds', 'taskFile'];

export function sharedTasksWarning(
  params: Pick<OptimizeParams, 'trainSplit' | 'selectSplit' | 'evalSplit'>,
  tasks: { train: { id: string }[]; select: { id: string }[]; eval: { id: string }[] },
): string | null {
  const ids = (xs: { id: string }[]) => new Set(xs.map((t) => t.id));
  const [train, select, evalIds] = [ids(tasks.train), ids(tasks.select), ids(tasks.eval)];
  const both = (a: Set<string>, b: Set<string>) => [...a].filter((id) => b.has(id)).length;
  const pairs = [
    [`train (${params.trainSplit})`, `selection (${params.selectSplit})`, both(train, select)],
    [`train (${params.trainSplit})`, `evaluation (${params.evalSplit})`, both(train, evalIds)],
    [
      `selection (${params.selectSplit})`,
      `evaluation (${params.evalSplit})`,
      both(select, evalIds),
    ],
  ] as const;
  const overlaps = pairs.filter(([, , n]) => n > 0).map(([a, b, n]) => `${n} in ${a} and ${b}`);
  if (overlaps.length === 0) return null;
  return (
    `the same tasks serve several roles (${overlaps.join('; ')}), so the final table is not ` +
    'held out. Tasks named with `taskIds` or `taskFile` stand for every split; give each split ' +
    "its own tasks (AppWorld: set APPWORLD_ROOT to use the install's split lists)"
  );
}

export function planOptimize(
  params: OptimizeParams,
  config: Config,
  tasks: { train: TaskInfo[]; select: TaskInfo[]; eval: TaskInfo[] },
  simulated: boolean,
  maxRollouts: number | null = null,
): OptimizePlan {
  const stages = stagesOf(params);
  const k = params.candidates;
  const train = tasks.train.length;
  const select = tasks.select.length;
  const evalN = tasks.eval.length;
  const { repeats } = params;
  let rollouts = 0;
  let analyzer = 0;
  for (const s of stages) {
    // The parent and k candidates on every repeat of every selection task (repeats.ts).
    rollouts += train * (s.phase === 'ut' ? 2 : 1) + select * repeats * (1 + k);
    analyzer += train;
  }
  // The pair check's options (stage-pair.ts: the learned pair, each learned guideline with the
  // other's v0, and v0; one learned option and v0 for one kind) on the repeats beyond the first;
  // the first run of each task is the final table's own, counted below.
  rollouts += select * (repeats - 1) * pairOptionsAtMost(params.target);
  // The final table's conditions (final-rows.ts) on the selection and evaluation splits, at most.
  const scopes = kindsOf(params.target).length + (params.target === 'both' ? 1 : 0);
  rollouts += (select + evalN) * (BASELINES.length + scopes * (1 + params.phases.length));
  rollouts += train; // the teacher's train rollouts with the final guidelines (for acon export)
  // Every rollout is counted as compressing: an upper estimate (the baselines call none).
  const { agent, compressor } = rolloutCalls(
    rollouts,
    rollouts,
    meanStepsOf([...tasks.train, ...tasks.select]),
  );
  const calls = { agent, compressor, analyzer, updater: stages.length * k };
  return {
    stages: stages.map((s) => `${s.phase}:${s.kind}:r${s.round}`),
    rollouts,
    calls,
    costUsd: simulated ? 0 : estimateCostUsd(calls, config),
    simulated,
    tasks: { train, select, eval: evalN },
    repeats,
    rule: decisionRuleLine(params),
    maxRollouts,
  };
}

/**
 * Whether the planned rollouts fit `--max-rollouts`. The plan counts every rollout at most (no
 * cache hits, no racing drops), so a run that "stops after N" may still finish.
 */
export function rolloutLimitLine(plan: Pick<OptimizePlan, 'rollouts' | 'maxRollouts'>): string {
  const max = plan.maxRollouts;
  if (max === null) return 'max rollouts: none';
  return plan.rollouts <= max
    ? `max rollouts: ${max}, fits (up to ${plan.rollouts} planned)`
    : `max rollouts: ${max}, stops after ${max} of ~${plan.rollouts} planned rollouts (resume with a larger --max-rollouts)`;
}

/** The acceptance rule a run's stages use, as the plan prints it. */
export function decisionRuleLine(
  params: Pick<OptimizeParams, 'selection' | 'decision' | 'racing'>,
): string {
  const d = params.decision;
  if (params.selection === 'reference' || d === null)
    return `selection ${params.selection}: the paper's rule (best accuracy; UT must beat the parent's train score, CO match it with fewer input tokens)`;
  const pct = (x: number) => `${+(100 * x).toFixed(2)}`;
  return (
    `selection ${params.selection}, paired against the parent: UT exact sign test p ≤ ${d.alpha} ` +
    `(a tie only with ≥ ${pct(d.tieTokenCut)}% fewer peak tokens); CO accuracy drop's ` +
    `${pct(1 - d.alpha)}% upper bound ≤ ${pct(d.margin)} points with fewer peak tokens; ` +
    `racing ${params.racing ? 'on (elimination, then successive halving: the better half of each rung goes on)' : 'off'}`
  );
}

export function formatPlan(plan: OptimizePlan): string {
  const c = plan.calls;
  const cost = plan.simulated
    ? '$0 (SIMULATED: the sim provider makes no paid calls)'
    : `~$${plan.costUsd.toFixed(2)} at most (list prices, no cache hits; early dropping and the cache cut it)`;
  return [
    `plan: ${plan.stages.join(' → ')} then the final comparison and the teacher's train rollouts`,
    `  tasks: ${plan.tasks.train} train, ${plan.tasks.select} selection${plan.repeats > 1 ? ` × ${plan.repeats} repeats (each its own seed and rollout)` : ''}, ${plan.tasks.eval} evaluation`,
    ...(plan.rule ? [`  rule: ${plan.rule}`] : []),
    `  rollouts: up to ${plan.rollouts}`,
    ...(plan.maxRollouts === null ? [] : [`  ${rolloutLimitLine(plan)}`]),
    `  LLM calls (estimate): agent ${c.agent}, compressors ${c.compressor}, analyzer ${c.analyzer}, updater ${c.updater}`,
    `  cost (estimate): ${cost}`,
  ].join('\n');
}

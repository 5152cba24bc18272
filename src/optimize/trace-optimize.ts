import { z } from 'zod';
import type { GuidelinePair } from '../domain/index.js';
import { roleTokenCounter, type TokenCounter } from '../llm/index.js';
import {
  GuidelinePairSchema,
  ProducerShape,
  ReplayMetricsSchema,
  type Trace,
} from '../domain/index.js';
import {
  inRun,
  referenceTraces,
  splitTraces,
  storedReplayMetrics,
  type RunEnv,
} from '../experiment/index.js';
import { DEFAULT_DECISION } from './decision-rule.js';
import { DecisionParamsSchema, kindsOf, PhaseSchema } from './params.js';
import { pairIds, promoteOnce, runGuidelineFiles, startingPair } from './run-guidelines.js';
import { runTraceStage, TraceStageResultSchema, type TraceStageResult } from './trace-stage.js';

/** What `acon optimize --traces` records with its run (and `--resume` reads back). */
export const TraceOptimizeParamsSchema = z.object({
  traces: z.string(),
  skipInvalid: z.boolean().default(false),
  target: z.enum(['obs', 'hist', 'both']),
  phases: z.array(PhaseSchema).min(1),
  rounds: z.number().int().min(1),
  candidates: z.number().int().min(1),
  guidelines: z.string().nullable(),
  promote: z.boolean(),
  /** Fractions of the conversations for train and selection; held-out takes the rest. */
  split: z.object({ train: z.number(), selection: z.number() }),
  /**
   * The paired rule's settings (optimize.alpha, optimize.margin), as an environment optimize
   * takes them; null in runs recorded before they were stored: the defaults those runs used.
   */
  decision: DecisionParamsSchema.nullable().default(null),
});
export type TraceOptimizeParams = z.infer<typeof TraceOptimizeParamsSchema>;

const HeldoutRowSchema = z.object({
  version: z.string(),
  obs: z.string(),
  hist: z.string(),
  metrics: ReplayMetricsSchema,
});

/** `acon optimize --traces --json`. */
export const TraceOptimizeResultSchema = z.object({
  runId: z.string(),
  source: z.string(),
  ...ProducerShape,
  /** Conversations per split; failed ones are never a full-context reference (left out). */
  conversations: z.object({
    train: z.number().int(),
    selection: z.number().int(),
    heldout: z.number().int(),
    failedLeftOut: z.number().int(),
  }),
  stages: z.array(TraceStageResultSchema),
  start: GuidelinePairSchema,
  ut: GuidelinePairSchema,
  final: GuidelinePairSchema,
  /** Replay metrics (not accuracy) on the held-out conversations: v0, UT, UTCO per scope. */
  heldout: z.array(HeldoutRowSchema),
  promoted: z.array(z.string()),
  files: z.array(z.string()),
});
export type TraceOptimizeResult = z.infer<typeof TraceOptimizeResultSchema>;

/**
 * `acon optimize --traces SOURCE` (issue #57): the utility and compression phases driven by
 * counterfactual replay of recorded conversations instead of environment rollouts. The
 * conversations are split by a seeded hash of their id (train: analyses; selection: candidates;
 * held-out: the final table); the result is guideline versions, lineage and promotion as in an
 * environment optimize, and a table of replay metrics. Everything is in one run; `--resume`
 * continues it from its stage checkpoints.
 */
export async function optimizeFromTraces(
  env: RunEnv,
  params: TraceOptimizeParams,
  input: {
    traces: readonly Trace[];
    resume?: string;
    command: string;
    log?: (line: string) => void;
  },
): Promise<TraceOptimizeResult> {
  const log = input.log ?? (() => {});
  return inRun(
    env,
    {
      resume: input.resume,
      kind: 'optimize',
      command: input.command,
      bench: env.bench.name,
      params,
      resumeWith: 'acon optimize',
    },
    async (runId) => {
      const { used, failed } = referenceTraces(input.traces);
      const splits = splitTraces(used, params.split, env.config.seed);
      log(
        `traces: ${splits.train.length} train, ${splits.selection.length} selection, ${splits.heldout.length} held-out conversations` +
          (failed > 0 ? ` (${failed} failed ones left out: no full-context reference)` : ''),
      );
      // One counter for the run, in the agent's tokenizer: thresholds fire where they would
      // when the agent is run, and a server's counts are asked for once.
      const tokens = roleTokenCounter(env.config, 'agent', env.llm);
      const { start, ut, pair, stages } = await runStages(env, runId, params, splits, log, tokens);
      const heldout = await heldoutRows(env, runId, params, splits.heldout, tokens, {
        start,
        ut,
        final: pair,
      });
      const promoted = params.promote ? promoteOnce(env, runId, pair) : [];
      const result: TraceOptimizeResult = {
        runId,
        source: params.traces,
        provider: env.provider,
        models: env.models,
        simulated: env.simulated,
        conversations: {
          train: splits.train.length,
          selection: splits.selection.length,
          heldout: splits.heldout.length,
          failedLeftOut: failed,
        },
        stages,
        start,
        ut,
        final: pair,
        heldout,
        promoted,
        files: runGuidelineFiles(env, runId),
      };
      env.store.setRunStatus(runId, 'finished', {
        stages,
        heldout,
        ut: pairIds(ut),
        final: pairIds(pair),
      });
      return result;
    },
  );
}

/** The phases stage by stage from the run's starting pair (recorded, so a resume starts alike). */
async function runStages(
  env: RunEnv,
  runId: string,
  params: TraceOptimizeParams,
  splits: { train: Trace[]; selection: Trace[] },
  log: (line: string) => void,
  tokens: TokenCounter,
) {
  const start = await startingPair(env, runId, params.guidelines);
  const tc = {
    env,
    runId,
    guidelines: env.guidelines,
    train: splits.train,
    select: splits.selection,
    candidates: params.candidates,
    decision: params.decision ?? DEFAULT_DECISION,
    log,
    tokens,
  };
  let pair: GuidelinePair = start;
  let ut: GuidelinePair = start;
  const stages: TraceStageResult[] = [];
  for (const phase of params.phases) {
    for (const kind of kindsOf(params.target)) {
      for (let round = 1; round <= params.rounds; round++) {
        const out = await runTraceStage(tc, phase, kind, round, pair);
        pair = out.pair;
        stages.push(out.result);
      }
    }
    if (phase === 'ut') ut = pair;
  }
  return { start, ut, pair, stages };
}

/** v0, UT and UTCO per compressor scope (alone, as tuned; both together), replayed on held-out. */
async function heldoutRows(
  env: RunEnv,
  runId: string,
  params: TraceOptimizeParams,
  heldout: readonly Trace[],
  tokens: TokenCounter,
  pairs: { start: GuidelinePair; ut: GuidelinePair; final: GuidelinePair },
): Promise<z.infer<typeof HeldoutRowSchema>[]> {
  const scopes: ('obs' | 'hist' | 'both')[] = [...kindsOf(params.target)];
  if (params.target === 'both') scopes.push('both');
  const versions: [string, GuidelinePair][] = [['v0', pairs.start]];
  if (params.phases.includes('ut')) versions.push(['UT', pairs.ut]);
  if (params.phases.includes('co')) versions.push(['UTCO', pairs.final]);
  const rows: z.infer<typeof HeldoutRowSchema>[] = [];
  for (const scope of scopes) {
    for (const [name, pair] of versions) {
      const only = scope === 'both' ? undefined : scope;
      const obs = only === 'hist' ? '-' : pair.obs.id;
      const hist = only === 'obs' ? '-' : pair.hist.id;
      const label = `${name} ${scope}`;
      const metrics = await storedReplayMetrics(env, {
        runId,
        key: `heldout:${label}:${obs},${hist}`,
        traces: heldout,
        condition: { label: `heldout-${obs},${hist}`, pair, ...(only ? { only } : {}) },
        tokens,
      });
      rows.push({ version: label, obs, hist, metrics });
    }
  }
  return rows;
}

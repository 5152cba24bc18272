import PQueue from 'p-queue';
import { z } from 'zod';
import type { RolloutRow } from '../domain/index.js';
import {
  analyzeContrastivePair,
  analyzeSuccessfulRun,
  type AnalysisRecord,
  type AnalysisSource,
} from './analyze.js';
import { contrastivePairs, pairStepsRatio } from './contrastive.js';
import type { PhaseContext, Stage, StageResult } from './stage.js';
import { trainRows } from './stage-rollouts.js';

export type UsableAnalysis = Extract<AnalysisRecord<unknown>, { ok: true }>;

export type StageAnalyses = {
  records: AnalysisRecord<unknown>[];
  usable: UsableAnalysis[];
  /** Pairs (UT), compressed failures (fallback) or successful runs (CO) that were analysed. */
  found: number;
  source: StageResult['analysisSource'];
};

const SourceSchema = z.object({
  rolloutId: z.string(),
  fullRolloutId: z.string().nullable(),
  split: z.string(),
  kind: z.enum(['failure', 'elongation', 'fallback', 'success']),
});
const CheckpointSchema = z.object({
  source: z.enum(['pairs', 'fallback', 'successes']),
  found: z.number().int(),
  records: z.array(
    z.union([
      z.object({
        taskId: z.string(),
        source: SourceSchema,
        ok: z.literal(true),
        analysis: z.unknown(),
        callIds: z.array(z.number()),
      }),
      z.object({
        taskId: z.string(),
        source: SourceSchema,
        ok: z.literal(false),
        reason: z.string(),
        callIds: z.array(z.number()),
      }),
    ]),
  ),
});

/** What one analysis is asked about: the analysed rollout and, in UT, its full-context partner. */
type Job = { compressed: RolloutRow; full: RolloutRow | null; source: AnalysisSource };

/**
 * Stage 2, analyses, from train-split rollouts only (ARCHITECTURE §4: nothing from the
 * selection or evaluation split reaches an analyzer or updater prompt; each record names the
 * rollout it came from and its split, so this can be checked).
 * - UT: every contrastive pair (the benchmark's pair rule, or the default); without any pair,
 *   every compressed failure (fallback, logged and recorded in the stage result).
 * - CO: every successful compressed run.
 * Checkpoint: `<stage>:analyses`; an interrupted run does not ask the analyzer again.
 */
export async function stageAnalyses(pc: PhaseContext, stage: Stage): Promise<StageAnalyses> {
  const { env, runId } = pc;
  const key = `${stage.name}:analyses`;
  const stored = env.store.getState(runId, key, z.unknown());
  const parsed = CheckpointSchema.safeParse(stored);
  if (parsed.success) return withUsable(parsed.data as Omit<StageAnalyses, 'usable'>);

  const { jobs, source } = analysisJobs(pc, stage);
  const what =
    source === 'pairs'
      ? 'contrastive pairs'
      : source === 'fallback'
        ? 'compressed failures (no contrastive pair: fallback)'
        : 'successful compressed runs';
  pc.log(`${stage.name}: ${jobs.length} ${what} on ${pc.train[0]?.split ?? 'train'}; analyzing`);
  const queue = new PQueue({ concurrency: env.config.run.concurrency });
  const records = await Promise.all(jobs.map((job) => queue.add(() => analyze(pc, stage, job))));
  const out = { records, found: jobs.length, source };
  env.store.setState(runId, key, out);
  return withUsable(out);
}

function withUsable(a: Omit<StageAnalyses, 'usable'>): StageAnalyses {
  return { ...a, usable: a.records.filter((r): r is UsableAnalysis => r.ok) };
}

function analysisJobs(
  pc: PhaseContext,
  stage: Stage,
): { jobs: Job[]; source: StageAnalyses['source'] } {
  const compressed = trainRows(pc, stage.compressed.label);
  const job = (c: RolloutRow, full: RolloutRow | null, kind: AnalysisSource['kind']): Job => ({
    compressed: c,
    full,
    source: { rolloutId: c.id, fullRolloutId: full?.id ?? null, split: c.split, kind },
  });
  if (stage.phase === 'co') {
    return {
      jobs: compressed.filter((r) => r.success).map((r) => job(r, null, 'success')),
      source: 'successes',
    };
  }
  const full = trainRows(pc, stage.raw.label);
  const pairs = contrastivePairs(full, compressed, {
    stepsRatio: pairStepsRatio(pc.env.config.optimize),
    rule: pc.env.bench.pairRule,
  });
  if (pairs.length > 0) {
    return { jobs: pairs.map((p) => job(p.compressed, p.full, p.kind)), source: 'pairs' };
  }
  const fullByTask = new Map(full.map((r) => [r.task_id, r]));
  return {
    jobs: compressed
      .filter((r) => !r.success)
      .map((r) => job(r, fullByTask.get(r.task_id) ?? null, 'fallback')),
    source: 'fallback',
  };
}

async function analyze(pc: PhaseContext, stage: Stage, job: Job): Promise<AnalysisRecord<unknown>> {
  const { store, llm, config } = pc.env;
  const common = {
    llm,
    ctx: { runId: pc.runId },
    kind: stage.kind,
    guideline: stage.parent.text,
    maxRetries: config.agent.max_output_retries,
    taskId: job.compressed.task_id,
    source: job.source,
  };
  if (stage.phase === 'co') {
    return analyzeSuccessfulRun({
      ...common,
      trajectory: store.trajectory(job.compressed.id),
      events: store.events(job.compressed.id),
    });
  }
  const run = (r: RolloutRow) => ({
    trajectory: store.trajectory(r.id),
    evaluation: r.evaluation,
    steps: r.steps,
  });
  return analyzeContrastivePair({
    ...common,
    full: job.full ? run(job.full) : null,
    compressed: run(job.compressed),
    compressedEvents: store.events(job.compressed.id),
  });
}

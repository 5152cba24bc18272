import type { z } from 'zod';
import {
  type CompressionEvent,
  type Trajectory,
  type Evaluation,
  CompressionAnalysisSchema,
  type CompressionAnalysis,
  UtilityAnalysisSchema,
  type UtilityAnalysis,
} from '../domain/index.js';
import type { PairKind } from '../bench/index.js';
import type { GuidelineKind } from '../guidelines/index.js';
import type { CallContext, LlmClient } from '../llm/index.js';
import { renderPrompt } from '../prompts/index.js';
import { COMPRESSION_ANALYSIS_FORMAT, UTILITY_ANALYSIS_FORMAT } from './analysis.js';
import { askJson, type JsonAnswer } from './ask-json.js';
import { renderCompressionEvents, renderTrajectory } from './render-trajectory.js';

/** Real models get observations cut to this many characters so an analyzer prompt stays bounded. */
const MAX_OBSERVATION_CHARS = 6_000;

/**
 * How an analysis came about: `failure`/`elongation` pairs and, when a utility phase found no
 * pair, `fallback` (a compressed failure analysed alone, as the reference does); `success` is a
 * compression-phase analysis of a successful compressed run.
 */
export type AnalysisKind = PairKind | 'fallback' | 'success';

/**
 * Where an analysis came from, stored with it so the split discipline can be checked: the
 * analysed (compressed) rollout, the full-context rollout it was contrasted with, and the
 * benchmark split of the task (always the train split, ARCHITECTURE §4).
 */
export type AnalysisSource = {
  rolloutId: string;
  fullRolloutId: string | null;
  split: string;
  kind: AnalysisKind;
};

/** One analyzer result as it is checkpointed and shown to the updater; failures are kept too. */
export type AnalysisRecord<T> =
  | { taskId: string; source: AnalysisSource; ok: true; analysis: T; callIds: number[] }
  | { taskId: string; source: AnalysisSource; ok: false; reason: string; callIds: number[] };

/** One side of a utility-phase pair: its trajectory and how it was judged. */
export type AnalyzedRun = {
  trajectory: Trajectory;
  evaluation: Evaluation;
  steps: number;
};

export type AnalyzeInput = {
  llm: LlmClient;
  ctx: Omit<CallContext, 'role'>;
  kind: GuidelineKind;
  guideline: string;
  maxRetries: number;
};

/**
 * Utility phase: what the compressed run lost, from a contrastive pair (seed 003), or from a
 * compressed failure alone when the phase found no pair (`fallback`). The analyzer also reads
 * the pair kind, the step ratio and the evaluation's failed checks (issue 11).
 */
export async function analyzeContrastivePair(
  input: AnalyzeInput & {
    taskId: string;
    source: AnalysisSource;
    full: AnalyzedRun | null;
    compressed: AnalyzedRun;
    compressedEvents: CompressionEvent[];
  },
): Promise<AnalysisRecord<UtilityAnalysis>> {
  const { full, compressed } = input;
  const vars = {
    task: compressed.trajectory.task,
    kind: input.kind,
    guideline: input.guideline,
    pair_kind: input.source.kind,
    full_outcome: full ? outcome(full) : 'not run',
    compressed_outcome: outcome(compressed),
    step_ratio: full && full.steps > 0 ? (compressed.steps / full.steps).toFixed(2) : 'n/a',
    compressed_evaluation: renderEvaluation(compressed.evaluation),
    full_trajectory: full
      ? renderTrajectory(full.trajectory, [], { maxObservationChars: MAX_OBSERVATION_CHARS })
      : '(no full-context run)',
    compressed_trajectory: renderTrajectory(compressed.trajectory, input.compressedEvents, {
      maxObservationChars: MAX_OBSERVATION_CHARS,
    }),
  };
  return askAnalyzer(input, 'analyzer-ut', vars, UTILITY_ANALYSIS_FORMAT, UtilityAnalysisSchema);
}

function outcome(run: AnalyzedRun): string {
  const verdict = run.evaluation.success ? 'succeeded' : 'failed';
  return `${verdict} in ${run.steps} steps (score ${run.evaluation.score.toFixed(2)})`;
}

/** The evaluation's checks, failed ones first: what the task needed and what the agent did. */
export function renderEvaluation(e: Evaluation): string {
  if (e.details.length === 0) return e.success ? 'all checks passed' : 'failed (no details)';
  const sorted = [...e.details].sort((a, b) => Number(a.passed) - Number(b.passed));
  return sorted.map((d) => `- [${d.passed ? 'pass' : 'FAIL'}] ${d.name}: ${d.detail}`).join('\n');
}

/** Compression phase: what a successful compressed run kept but never used (seed 003). */
export async function analyzeSuccessfulRun(
  input: AnalyzeInput & {
    taskId: string;
    source: AnalysisSource;
    trajectory: Trajectory;
    events: CompressionEvent[];
  },
): Promise<AnalysisRecord<CompressionAnalysis>> {
  const vars = {
    task: input.trajectory.task,
    kind: input.kind,
    guideline: input.guideline,
    events: renderCompressionEvents(input.trajectory, input.events, {
      kind: input.kind,
      maxObservationChars: MAX_OBSERVATION_CHARS,
    }),
  };
  return askAnalyzer(
    input,
    'analyzer-co',
    vars,
    COMPRESSION_ANALYSIS_FORMAT,
    CompressionAnalysisSchema,
  );
}

/**
 * The analyzer's answer to the prompt pair `<prompt>.system.txt` and `<prompt>.user.txt` filled
 * with `vars`, parsed by `schema` (retried up to `maxRetries`), as the record the phase keeps.
 */
async function askAnalyzer<T>(
  input: AnalyzeInput & { taskId: string; source: AnalysisSource },
  prompt: 'analyzer-ut' | 'analyzer-co',
  vars: Record<string, string>,
  format: Parameters<typeof askJson>[3],
  schema: z.ZodType<T>,
): Promise<AnalysisRecord<T>> {
  const answer = await askJson(
    input.llm,
    { ...input.ctx, role: 'analyzer', taskId: input.taskId },
    [
      { role: 'system', content: renderPrompt(`${prompt}.system.txt`, vars) },
      { role: 'user', content: renderPrompt(`${prompt}.user.txt`, vars) },
    ],
    format,
    schema,
    input.maxRetries,
  );
  return toRecord(input.taskId, input.source, answer);
}

function toRecord<T>(
  taskId: string,
  source: AnalysisSource,
  answer: JsonAnswer<T>,
): AnalysisRecord<T> {
  return answer.ok
    ? { taskId, source, ok: true, analysis: answer.value, callIds: answer.callIds }
    : { taskId, source, ok: false, reason: answer.reason, callIds: answer.callIds };
}

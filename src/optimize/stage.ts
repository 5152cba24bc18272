import { z } from 'zod';
import type { GuidelinePair } from '../domain/index.js';
import type { GuidelineText } from '../domain/index.js';
import type { TaskInfo } from '../bench/index.js';
import type { GuidelineStore, GuidelineKind } from '../guidelines/index.js';
import { makeCondition, type Condition } from '../experiment/index.js';
import type { RunEnv } from '../experiment/index.js';
import type { Phase, SelectionMode } from './params.js';
import type { DecisionParams } from './decision-rule.js';

/** What every stage of a phase needs: the run, its splits, and where to report. */
export type PhaseContext = {
  env: RunEnv;
  runId: string;
  guidelines: GuidelineStore;
  train: TaskInfo[];
  select: TaskInfo[];
  candidates: number;
  /** `heldout`: candidates run on `select`; `reference`: on D_cont / D_succ of `train`. */
  selection: SelectionMode;
  /** The paired rule (null: a run recorded before it, decided by selection.ts). */
  decision: DecisionParams | null;
  racing: boolean;
  log: (line: string) => void;
  /** `outcome` is the rollout just stored (null when it was skipped or already stored). */
  progress: (
    label: string,
    done: number,
    total: number,
    outcome?: { success: boolean } | null,
  ) => void;
};

/**
 * One phase of one guideline kind in one round, e.g. `ut:obs:r1`: the guideline under review
 * (`parent`), the pair it is part of, and the conditions its rollouts run under. With
 * `optimize.isolate` (default) the compressed condition has only this kind's compressor on.
 */
export type Stage = {
  name: string;
  phase: Phase;
  kind: GuidelineKind;
  round: number;
  current: GuidelinePair;
  parent: GuidelineText;
  isolated: boolean;
  compressed: Condition;
  raw: Condition;
};

export function makeStage(
  pc: PhaseContext,
  phase: Phase,
  kind: GuidelineKind,
  round: number,
  current: GuidelinePair,
): Stage {
  const isolated = pc.env.config.optimize.isolate;
  return {
    name: `${phase}:${kind}:r${round}`,
    phase,
    kind,
    round,
    current,
    parent: current[kind],
    isolated,
    compressed: stageCondition(current, kind, isolated),
    raw: makeCondition('raw'),
  };
}

/** The condition a stage runs `pair` under: only `kind`'s compressor on when isolated. */
export function stageCondition(
  pair: GuidelinePair,
  kind: GuidelineKind,
  isolated: boolean,
): Condition {
  return makeCondition('acon', pair, isolated ? kind : undefined);
}

/** A (condition, task) pair: one rollout of a run. */
export const RolloutKeySchema = z.object({ condition: z.string(), taskId: z.string() });
export type RolloutKey = z.infer<typeof RolloutKeySchema>;

export const CandidateReportSchema = z.object({
  id: z.string().nullable(),
  index: z.number().int(),
  status: z.enum(['accepted', 'rejected']),
  reason: z.string(),
  accuracy: z.number().nullable(),
  peakTokens: z.number().nullable(),
  /** Mean input tokens per task, agent and compressors (the reference's tie-break). */
  inputTokens: z.number().nullable().default(null),
});
export type CandidateReport = z.infer<typeof CandidateReportSchema>;

export const StageResultSchema = z.object({
  stage: z.string(),
  parent: z.string(),
  accepted: z.string().nullable(),
  /** Contrastive pairs (UT) or successful train runs (CO) found. */
  pairs: z.number().int(),
  analyses: z.number().int(),
  failedAnalyses: z.number().int(),
  /**
   * What was analysed: `pairs` (UT), `fallback` (UT found no pair: every compressed failure of
   * the train split, as the reference does), `successes` (CO).
   */
  analysisSource: z.enum(['pairs', 'fallback', 'successes']).default('pairs'),
  /** Only this kind's compressor was on in the stage's train and selection rollouts. */
  isolated: z.boolean().default(false),
  /** How candidates were selected (runs recorded before the choice existed: heldout). */
  selection: z.enum(['heldout', 'reference', 'reference-paired']).default('heldout'),
  /** Tasks candidates were evaluated on (the selection split, or D_cont / D_succ). */
  selectionTasks: z.number().int().default(0),
  candidates: z.array(CandidateReportSchema),
  /**
   * The candidates' selection rollouts: stored (`ran`, cache hits included) and skipped because
   * the candidate had been dropped (`saved`). Runs recorded before racing: absent.
   */
  selectionRollouts: z.object({ ran: z.number().int(), saved: z.number().int() }).optional(),
  /**
   * Rollouts of the stage (train or selection) the infrastructure lost before the decision was
   * made (issue #31): the decision was made without them. Kept as recorded.
   */
  incomplete: z.array(RolloutKeySchema).default([]),
  /**
   * Set by `--resume` after it ran the `incomplete` rollouts again: what the selection rule picks
   * on the completed rollouts. The recorded decision stands (a resume continues what was
   * recorded; later stages were built on it); `agrees: false` says it would now differ.
   */
  recheck: z
    .object({
      /** null with `agrees: null`: the stage had no candidates (its analyses are not redone). */
      accepted: z.string().nullable(),
      agrees: z.boolean().nullable(),
      /** Rollouts still lost after the rerun (they failed again). */
      missing: z.number().int(),
    })
    .optional(),
});
export type StageResult = z.infer<typeof StageResultSchema>;

/** `pair` with `kind` replaced by guideline version `id` (unchanged for null). */
export function withKind(
  pair: GuidelinePair,
  kind: GuidelineKind,
  id: string | null,
  guidelines: GuidelineStore,
): GuidelinePair {
  if (id === null) return pair;
  const g = guidelines.get(id);
  return { ...pair, [kind]: { id: g.id, text: g.text } };
}

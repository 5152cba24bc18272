import { z } from 'zod';

export const PhaseSchema = z.enum(['ut', 'co']);
export type Phase = z.infer<typeof PhaseSchema>;

/** How candidates are chosen (config `optimize.selection`, flag `--selection`). */
export const SelectionModeSchema = z.enum(['heldout', 'reference', 'reference-paired']);
export type SelectionMode = z.infer<typeof SelectionModeSchema>;

/** The paired acceptance rule's settings (decision-rule.ts), stored with the run. */
export const DecisionParamsSchema = z.object({
  alpha: z.number().gt(0).lt(1),
  margin: z.number().min(0).max(1),
  tieTokenCut: z.number().min(0).max(1),
});

/** What `acon optimize` runs with; stored with the run so --resume continues it exactly. */
export const OptimizeParamsSchema = z.object({
  bench: z.string(),
  target: z.enum(['obs', 'hist', 'both']),
  phases: z.array(PhaseSchema).min(1),
  rounds: z.number().int().min(1),
  candidates: z.number().int().min(1),
  trainSplit: z.string(),
  selectSplit: z.string(),
  evalSplit: z.string(),
  /** Starting guidelines (`--guidelines`), default the active ones. */
  guidelines: z.string().nullable(),
  /** Make the final versions active when the run ends. */
  promote: z.boolean(),
  /** Limit each split to its first N tasks (quick trials). */
  maxTasks: z.number().int().min(1).nullable(),
  /**
   * Use only the first N tasks of the training and of the selection split (null: all); the
   * evaluation split is always whole. Runs recorded before this existed used all.
   */
  trainTasks: z.number().int().min(1).nullable().default(null),
  selectTasks: z.number().int().min(1).nullable().default(null),
  /** Candidate selection; runs recorded before it existed selected `heldout`. */
  selection: SelectionModeSchema.default('heldout'),
  /**
   * The paired rule candidates are accepted by (issue 56). null: a run recorded before it existed,
   * whose stages keep the rule they were decided by (selection.ts).
   */
  decision: DecisionParamsSchema.nullable().default(null),
  /**
   * Where the selection tasks come from: `split`, the selection split as it is; `grouped`, the
   * pooled train and selection splits with whole task patterns held out for selection
   * (grouped-split.ts). Runs recorded before it: `split`.
   */
  selectFrom: z.enum(['split', 'grouped']).default('split'),
  /**
   * Each selection task run this many times, each repeat with its own sampling seed and rollout
   * (repeats.ts); the paired rule counts each repeat as a unit. Runs recorded before it: 1.
   */
  repeats: z.number().int().min(1).default(1),
  /**
   * Race the candidates by successive halving (race.ts): after each rung, drop those no outcome
   * of their remaining selection tasks could get accepted, then all but the better half.
   */
  racing: z.boolean().default(false),
});
export type OptimizeParams = z.infer<typeof OptimizeParamsSchema>;

/** The name the selection tasks go by in logs and tables. */
export function selectionName(params: Pick<OptimizeParams, 'selectFrom' | 'selectSplit'>): string {
  return params.selectFrom === 'grouped' ? 'selection' : params.selectSplit;
}

/** The guideline kinds an optimize of this target tunes, obs first. */
export function kindsOf(target: OptimizeParams['target']): ('obs' | 'hist')[] {
  return target === 'both' ? ['obs', 'hist'] : [target];
}

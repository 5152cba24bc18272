import { z } from 'zod';
import { GUIDELINE_MAX_CHARS } from '../domain/index.js';

/**
 * The shape of a guideline version on disk (ARCHITECTURE §3, issue 6): YAML front matter with
 * the version's identity, lineage and scores, then the guideline text the compressor follows.
 */

export { GUIDELINE_MAX_CHARS } from '../domain/index.js';

export const GuidelineKindSchema = z.enum(['obs', 'hist']);
export type GuidelineKind = z.infer<typeof GuidelineKindSchema>;
export const GUIDELINE_KINDS: readonly GuidelineKind[] = GuidelineKindSchema.options;

/** `seed` is the shipped v0; `ut`/`co` come from the optimizer's phases; `manual` is hand-written. */
export const GuidelinePhaseSchema = z.enum(['seed', 'ut', 'co', 'manual']);
export type GuidelinePhase = z.infer<typeof GuidelinePhaseSchema>;

/**
 * Every candidate the optimizer evaluates is kept, the losers as `rejected` (issue 6); a
 * `candidate` is generated but not yet selected (an optimize run is still evaluating it).
 */
export const GuidelineStatusSchema = z.enum(['seed', 'candidate', 'accepted', 'rejected']);
export type GuidelineStatus = z.infer<typeof GuidelineStatusSchema>;

/** `obs-0003`, `hist-0012`: the kind, then a sequence number of at least four digits. */
export const GUIDELINE_ID_PATTERN = /^(obs|hist)-(\d{4,})$/;
export const GuidelineIdSchema = z
  .string()
  .regex(GUIDELINE_ID_PATTERN, 'expected an id like obs-0003 or hist-0012');
export type GuidelineId = z.infer<typeof GuidelineIdSchema>;

/** `2026-11-22` or an ISO date-time such as `2026-11-22T03:16:00.000Z`. */
const CreatedSchema = z.union([z.iso.date(), z.iso.datetime({ offset: true, local: true })], {
  error: 'expected an ISO date (2026-11-22) or date-time (2026-11-22T03:16:00Z)',
});

const MetricValueSchema = z.union([
  z.number(),
  z.string(),
  z.boolean(),
  z.null(),
  z.array(z.union([z.number(), z.string()])),
]);
export type MetricValue = z.infer<typeof MetricValueSchema>;

/**
 * Scores of a version on the split it was selected on. The well-known keys are typed (the log
 * shows them); anything else the optimizer wants to record is kept as-is.
 */
export const GuidelineMetricsSchema = z
  .object({
    /** Task success rate, 0..1. */
    accuracy: z.number().min(0).max(1).optional(),
    /** Mean peak agent context tokens per rollout (system prompt and tools excluded, paper v3; src/metrics/metrics.ts). */
    peakTokens: z.number().nonnegative().optional(),
    /** Mean agent steps per rollout. */
    steps: z.number().nonnegative().optional(),
    costUsd: z.number().nonnegative().optional(),
    /** The split the numbers above were measured on. */
    split: z.string().optional(),
    /** Number of tasks evaluated. */
    tasks: z.number().int().nonnegative().optional(),
  })
  .catchall(MetricValueSchema);
export type GuidelineMetrics = z.infer<typeof GuidelineMetricsSchema>;

function idKind(id: string): string | undefined {
  return GUIDELINE_ID_PATTERN.exec(id)?.[1];
}

const FrontMatterObject = z.object({
  id: GuidelineIdSchema,
  kind: GuidelineKindSchema,
  parent: GuidelineIdSchema.nullable(),
  phase: GuidelinePhaseSchema,
  run: z.string().min(1).nullable(),
  /**
   * The benchmark the version was learned on (`optimize --bench`); absent for the shipped seeds
   * and hand-written versions, which belong to no benchmark. Using it on another benchmark
   * prints a warning (issue #24).
   */
  bench: z.string().min(1).optional(),
  /** Omitted in hand-written files: `seed` for the seed phase, otherwise `accepted`. */
  status: GuidelineStatusSchema.optional(),
  created: CreatedSchema,
  metrics: GuidelineMetricsSchema.default({}),
  /** The analyzer findings that motivated this version (short, one per entry). */
  analyses: z.array(z.string()).optional(),
  /** Why the updater (or a person) made this change. */
  rationale: z.string().optional(),
});

/** Keeps an id's prefix, its kind and its parent's kind consistent. */
function checkConsistency(
  fm: { id: string; kind: GuidelineKind; parent: string | null },
  ctx: z.RefinementCtx,
) {
  if (idKind(fm.id) !== fm.kind) {
    ctx.addIssue({
      code: 'custom',
      path: ['id'],
      message: `id "${fm.id}" does not start with its kind "${fm.kind}-"`,
    });
  }
  if (fm.parent !== null && idKind(fm.parent) !== fm.kind) {
    ctx.addIssue({
      code: 'custom',
      path: ['parent'],
      message: `parent "${fm.parent}" is not a ${fm.kind} guideline`,
    });
  }
  if (fm.parent === fm.id) {
    ctx.addIssue({
      code: 'custom',
      path: ['parent'],
      message: 'a version cannot be its own parent',
    });
  }
}

function withStatus<T extends { phase: GuidelinePhase; status?: GuidelineStatus | undefined }>(
  fm: T,
): T & { status: GuidelineStatus } {
  return { ...fm, status: fm.status ?? (fm.phase === 'seed' ? 'seed' : 'accepted') };
}

export const GuidelineFrontMatterSchema =
  FrontMatterObject.superRefine(checkConsistency).transform(withStatus);
export type GuidelineFrontMatter = z.output<typeof GuidelineFrontMatterSchema>;

export const GuidelineTextSchema = z
  .string()
  .trim()
  .min(1, 'the guideline text is empty')
  .max(GUIDELINE_MAX_CHARS, `the guideline text is longer than ${GUIDELINE_MAX_CHARS} characters`);

export const GuidelineSchema = FrontMatterObject.extend({ text: GuidelineTextSchema })
  .superRefine(checkConsistency)
  .transform(withStatus);
/** A guideline version: its front matter and text. */
export type Guideline = z.output<typeof GuidelineSchema>;

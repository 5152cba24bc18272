/** Versioned guidelines on disk: schema, file format, validation, store, diff, rendering. */
export {
  GUIDELINE_ID_PATTERN,
  GUIDELINE_KINDS,
  GUIDELINE_MAX_CHARS,
  GuidelineFrontMatterSchema,
  GuidelineIdSchema,
  GuidelineKindSchema,
  GuidelineMetricsSchema,
  GuidelinePhaseSchema,
  GuidelineSchema,
  GuidelineStatusSchema,
  GuidelineTextSchema,
  type Guideline,
  type GuidelineFrontMatter,
  type GuidelineId,
  type GuidelineKind,
  type GuidelineMetrics,
  type GuidelinePhase,
  type GuidelineStatus,
  type MetricValue,
} from './schema.js';
export { parseGuideline, readGuidelineFile, serializeGuideline } from './file.js';
export { GUIDELINE_PAIR, resolveGuidelinePair } from './resolve.js';
export { resolvePairList, type NamedPair } from './pair-list.js';
export { REQUIRED_HEADING, validateGuidelineText, type GuidelineValidation } from './validate.js';
export {
  ACTIVE_FILE,
  GuidelineStore,
  PACKAGE_GUIDELINES_DIR,
  formatGuidelineId,
  toVersionRow,
  type GuidelineStoreOptions,
  type NewGuideline,
  type StoredGuideline,
} from './store.js';
export {
  colorPatch,
  textsDiffer,
  unifiedDiff,
  wordDiff,
  type DiffOptions,
  type DiffSide,
} from './diff.js';
export { foreignBenchWarning } from './bench-check.js';
export { parseDirectives, stripDirectives } from './directives.js';
export { checkGuidelinesFolder } from './missing-folder.js';
export { CandidateSlotsSchema, reserveCandidates, writeCandidates } from './candidates.js';
export type { CandidateSlot } from './candidates.js';
export { promotePair, PromotionSchema } from './promote-pair.js';

export { exportDataset, type ExportDeps } from './exporter.js';
export {
  DEFAULT_COMPRESSOR_STRATEGIES,
  ExportFormatSchema,
  ExportOptionsSchema,
  ExportRoleSchema,
  LLM_ROLE_OF,
  OverflowSchema,
  type ExportFormat,
  type ExportOptions,
  type ExportRole,
  type Overflow,
  type RunTeacher,
  type TrainingExample,
} from './schema.js';
export type { ExportSummary, TaskCount } from './summary.js';
export {
  lintFile,
  lintLine,
  type LintOptions,
  type LintProblem,
  type LintReport,
} from './lint/lint.js';
export { RULES as LINT_RULES, type LintIssue } from './lint/chat-rules.js';
export { LintFailedError } from './errors.js';
export { FORMATS, type FormatSpec } from './formats/index.js';
export { scrubText, REDACTED } from './scrub.js';
export { validationTasks } from './split.js';
export { exportPaths, type ExportPaths } from './paths.js';

export {
  modelLabel,
  conditionTable,
  runIdLine,
  verdictText,
  conditionColumns,
  PEAK_NOTE,
  resultTable,
  SIMULATED_NOTE,
  closingLine,
} from './table.js';
export { fitTable, terminalWidth, wrapLine, wrapNotes } from './fit-table.js';
export type { Column, FitOptions } from './fit-table.js';
export {
  formatAccuracy,
  formatTokens,
  guidelineLogJson,
  renderGuidelineLog,
  renderGuidelineShow,
} from './guidelines-view.js';
export { infraFailureLines } from './infra-failures-view.js';
export { replayTable, replayVerdict } from './replay-view.js';
export { DEFAULT_MAX_TRAJECTORIES } from './html/embedded-rollouts.js';
export { reportData, ReportDataSchema } from './html/report-data.js';
export { renderReportHtml } from './html/render-html.js';
export { rolloutShow, renderRollout, RolloutShowSchema } from './rollout-view.js';
export { runListItems, runsListTable, RunsListSchema } from './runs-list.js';
export { runShow, runShowTable, RunShowSchema } from './run-show.js';
export { costByRole } from './cost-by-role.js';
export { diffRuns, runDiffColumns } from './run-diff.js';
export { renderTask, renderTaskTable } from './task-table.js';
export { renderExportSummary, renderLintReport } from './export-summary.js';
export { optimizeReport, reviewLine } from './optimize-report.js';

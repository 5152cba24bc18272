export { extractSection, REFINED_OBSERVATION, HISTORY_SUMMARY } from './parse.js';
export type { CompressorHeading, SectionParse } from './parse.js';
export { renderTurns, renderTurn, renderAction } from './render-history.js';
export { runCompressor } from './run-compressor.js';
export type { CompressorDeps, CompressorOutcome, CompressorRequest } from './run-compressor.js';
export { compressObservation } from './observation-compressor.js';
export type { ObservationInput } from './observation-compressor.js';
export { compressHistory, compressSummary, foldedText } from './history-compressor.js';
export type { HistoryInput, SummaryInput } from './history-compressor.js';

import { renderPrompt } from '../prompts/index.js';
import { foldedText } from './history-compressor.js';
import { HISTORY_SUMMARY } from './parse.js';
import { runCompressor, type CompressorDeps, type CompressorOutcome } from './run-compressor.js';

export type SummaryInput = {
  task: string;
  previousSummary: string | null;
  /** Rendered turns T_{t_last+1} … T_{t-1-M} (seed 001 §3.1). */
  history: string;
  step: number;
  /** @default 'summary' ('reactive' when forced by a context-length error) */
  kind?: 'summary' | 'reactive';
};

/**
 * The LLM-summary baseline's summarizer π' (seed 001 §3.1, Appendix B): a fixed OpenHands-style
 * structured prompt (USER_CONTEXT / COMPLETED / PENDING / CURRENT_STATE), no guideline. It runs
 * under the `hist_compressor` role.
 */
export function compressSummary(
  input: SummaryInput,
  deps: CompressorDeps,
): Promise<CompressorOutcome> {
  return runCompressor(
    {
      kind: input.kind ?? 'summary',
      role: 'hist_compressor',
      heading: HISTORY_SUMMARY,
      system: renderPrompt('summary.system.txt', {}),
      user: renderPrompt('summary.user.txt', {
        task: input.task,
        previous_summary: input.previousSummary ?? '(none)',
        history: input.history,
      }),
      original: foldedText(input.previousSummary, input.history),
      guidelineId: null,
      step: input.step,
    },
    deps,
  );
}

import type { GuidelineText } from '../domain/index.js';
import { renderPrompt } from '../prompts/index.js';
import { HISTORY_SUMMARY } from './parse.js';
import { runCompressor, type CompressorDeps, type CompressorOutcome } from './run-compressor.js';

export type HistoryInput = {
  task: string;
  /** The summary the new one replaces; null before the first compression. */
  previousSummary: string | null;
  /** Rendered turns to fold (render-history.ts). */
  history: string;
  guideline: GuidelineText;
  step: number;
  /** @default 'hist' ('reactive' when forced by a context-length error) */
  kind?: 'hist' | 'reactive';
};

/**
 * ACON's history compressor h'_t = f(h_t; P_hist) (seed 003): folds the previous summary and
 * the given turns into one summary, the text under `# History Summary`.
 */
export function compressHistory(
  input: HistoryInput,
  deps: CompressorDeps,
): Promise<CompressorOutcome> {
  return runCompressor(
    {
      kind: input.kind ?? 'hist',
      role: 'hist_compressor',
      heading: HISTORY_SUMMARY,
      system: renderPrompt('hist-compressor.system.txt', { guideline: input.guideline.text }),
      user: renderPrompt('hist-compressor.user.txt', {
        task: input.task,
        previous_summary: input.previousSummary ?? '(none)',
        history: input.history,
      }),
      original: foldedText(input.previousSummary, input.history),
      guidelineId: input.guideline.id,
      step: input.step,
    },
    deps,
  );
}

/** What a history compression replaces: the previous summary (if any) and the folded turns. */
export function foldedText(previousSummary: string | null, history: string): string {
  return previousSummary === null ? history : `Previous summary:\n${previousSummary}\n\n${history}`;
}

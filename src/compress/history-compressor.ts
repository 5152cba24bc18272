import type { GuidelineText } from '../domain/index.js';
import { renderPrompt } from '../prompts/index.js';
import { HISTORY_SUMMARY } from './parse.js';
import {
  runCompressor,
  type CompressorDeps,
  type CompressorOutcome,
  type CompressorRequest,
} from './run-compressor.js';

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
 * ACON's history compressor h'_t = f(h_t; P_hist) (seed 003): folds the previous summary and
 * the given turns into one summary, the text under `# History Summary`.
 */
export function compressHistory(
  input: HistoryInput,
  deps: CompressorDeps,
): Promise<CompressorOutcome> {
  return foldHistory(input, input.kind ?? 'hist', 'hist-compressor', input.guideline, deps);
}

/**
 * The LLM-summary baseline's summarizer π' (seed 001 §3.1, Appendix B): a fixed OpenHands-style
 * structured prompt (USER_CONTEXT / COMPLETED / PENDING / CURRENT_STATE), no guideline. It runs
 * under the `hist_compressor` role.
 */
export function compressSummary(
  input: SummaryInput,
  deps: CompressorDeps,
): Promise<CompressorOutcome> {
  return foldHistory(input, input.kind ?? 'summary', 'summary', null, deps);
}

/**
 * What ACON's history compressor and the summary baseline share: both fold the previous summary
 * and the turns into one summary under `# History Summary`, as the `hist_compressor` role; they
 * differ in the prompts and whether a guideline goes with them.
 */
function foldHistory(
  input: Pick<HistoryInput, 'task' | 'previousSummary' | 'history' | 'step'>,
  kind: CompressorRequest['kind'],
  /** The prompt files' stem: `<prompts>.system.txt` and `<prompts>.user.txt` in src/prompts/. */
  prompts: 'hist-compressor' | 'summary',
  guideline: GuidelineText | null,
  deps: CompressorDeps,
): Promise<CompressorOutcome> {
  return runCompressor(
    {
      kind,
      role: 'hist_compressor',
      heading: HISTORY_SUMMARY,
      system: renderPrompt(
        `${prompts}.system.txt`,
        guideline === null ? {} : { guideline: guideline.text },
      ),
      user: renderPrompt(`${prompts}.user.txt`, {
        task: input.task,
        previous_summary: input.previousSummary ?? '(none)',
        history: input.history,
      }),
      original: foldedText(input.previousSummary, input.history),
      guidelineId: guideline?.id ?? null,
      step: input.step,
    },
    deps,
  );
}

/** What a history compression replaces: the previous summary (if any) and the folded turns. */
export function foldedText(previousSummary: string | null, history: string): string {
  return previousSummary === null ? history : `Previous summary:\n${previousSummary}\n\n${history}`;
}

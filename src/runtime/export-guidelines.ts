import { z } from 'zod';
import { renderPrompt } from '../prompts/template.js';
import type { Guidelines } from './load-guidelines.js';

/** Where a learned guideline can go (`acon guidelines export --to`). */
export const ExportTargetSchema = z.enum(['langchain', 'letta', 'anthropic', 'openhands', 'text']);
export type ExportTarget = z.infer<typeof ExportTargetSchema>;

/** One line per target: what the output is and where it goes (for `--help` and docs/runtime.md). */
export const EXPORT_TARGETS: Record<ExportTarget, string> = {
  langchain:
    'a summary prompt for LangChain.js/Python SummarizationMiddleware (its summaryPrompt option; {messages} is where the middleware puts the history)',
  letta:
    "JSON for a Letta agent's compaction_settings: the summarizer prompt (set model to your summarizer)",
  anthropic:
    "JSON for the Anthropic SDK tool runner's client-side compaction (compactionControl.summaryPrompt)",
  openhands:
    'the summarizing prompt of an OpenHands LLM summarizing condenser (the condenser appends the events to summarize)',
  text: 'both guidelines as plain text with a heading each, for any framework or prompt',
};

/**
 * The history guideline as the compaction prompt of another framework, in the words acon's own
 * history compressor uses (src/prompts/hist-compressor.system.txt), so the learned guideline is
 * followed the way it was learned. Only `text` carries the observation guideline: none of the
 * other targets compresses single tool results.
 */
export function exportGuidelines(target: ExportTarget, g: Guidelines): string {
  const hist = renderPrompt('hist-compressor.system.txt', { guideline: g.hist.text }).trim();
  switch (target) {
    case 'langchain':
      return `${hist}\n\n<history>\n{messages}\n</history>\n`;
    case 'letta':
      return `${JSON.stringify({ compaction_settings: { model: 'provider/model', prompt: hist } }, null, 2)}\n`;
    case 'anthropic':
      return `${JSON.stringify({ compactionControl: { enabled: true, contextTokenThreshold: 100000, summaryPrompt: hist } }, null, 2)}\n`;
    case 'openhands':
      return `${hist}\n`;
    case 'text':
      return [
        `# Observation guideline (${g.obs.id})`,
        '',
        g.obs.text.trim(),
        '',
        `# History guideline (${g.hist.id})`,
        '',
        g.hist.text.trim(),
        '',
      ].join('\n');
  }
}

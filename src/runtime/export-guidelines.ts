import { z } from 'zod';
import { renderPrompt } from '../prompts/index.js';
import type { Guidelines } from './load-guidelines.js';
import { EXPORT_TARGET_NAMES } from './export-targets.js';

/** Where a learned guideline can go (`acon guidelines export --to`). */
export const ExportTargetSchema = z.enum(EXPORT_TARGET_NAMES);
export type ExportTarget = z.infer<typeof ExportTargetSchema>;

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

import { describe, expect, it } from 'vitest';
import { exportGuidelines, ExportTargetSchema } from './export-guidelines.js';

const pair = {
  obs: { id: 'obs-0003', text: 'Keep ids and amounts.\nKEEP: id' },
  hist: { id: 'hist-0002', text: 'Keep progress and credentials.\nKEEP: progress' },
};

describe('exportGuidelines', () => {
  it('makes a LangChain summary prompt with the history guideline and the {messages} slot', () => {
    const text = exportGuidelines('langchain', pair);
    expect(text).toContain(
      '<guideline>\nKeep progress and credentials.\nKEEP: progress\n</guideline>',
    );
    expect(text).toContain('# History Summary');
    expect(text.match(/\{messages\}/g)).toHaveLength(1);
    expect(text).not.toContain('Keep ids and amounts.');
  });

  it.each([
    ['letta', (o: Record<string, Record<string, string>>) => o.compaction_settings!.prompt],
    [
      'anthropic',
      (o: Record<string, Record<string, string>>) => o.compactionControl!.summaryPrompt,
    ],
  ] as const)('makes valid JSON for %s holding the prompt', (target, prompt) => {
    const parsed = JSON.parse(exportGuidelines(target, pair)) as Record<
      string,
      Record<string, string>
    >;
    expect(prompt(parsed)).toContain('KEEP: progress');
  });

  it('writes both guidelines under their ids for text', () => {
    expect(exportGuidelines('text', pair)).toMatchInlineSnapshot(`
      "# Observation guideline (obs-0003)

      Keep ids and amounts.
      KEEP: id

      # History guideline (hist-0002)

      Keep progress and credentials.
      KEEP: progress
      "
    `);
  });

  it('has no links in any target', () => {
    for (const t of ExportTargetSchema.options) {
      expect(exportGuidelines(t, pair)).not.toMatch(/https?:\/\//);
    }
  });
});

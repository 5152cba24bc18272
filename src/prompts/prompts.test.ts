import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UtilityAnalysisSchema } from '../domain/utility-analysis.js';
import { UtilityAnalysisJsonSchema } from '../optimize/analysis.js';
import { AconError } from '../errors.js';
import { loadPrompt, renderTemplate, TemplateError } from './template.js';

const files = readdirSync(fileURLToPath(new URL('.', import.meta.url))).filter((f) =>
  f.endsWith('.txt'),
);

describe('prompts real models see', () => {
  it.each(files)('%s teaches no sim-only directive grammar (KEEP:/DROP:/MAX_ITEMS:)', (file) => {
    expect(loadPrompt(file)).not.toMatch(/\b(KEEP|DROP|MAX_ITEMS)\s*:/);
  });

  it('the updaters ask for structured prose: rule sections and a table of state variables', () => {
    for (const file of ['updater-ut.system.txt', 'updater-co.system.txt', 'updater-trace-ut.system.txt']) {
      const text = loadPrompt(file);
      expect(text).toContain('| Variable | What it is | Why the agent needs it |');
      expect(text).toContain('## Always keep');
      expect(text).toContain('its own sample of analyses');
    }
  });

  it('the utility analyzer asks for summary inaccuracies and a root cause, and the schema has them', () => {
    const text = loadPrompt('analyzer-ut.system.txt');
    expect(text).toContain('"summary_inaccuracies"');
    expect(text).toContain('"root_cause"');
    const props = (UtilityAnalysisJsonSchema as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(props)).toEqual(
      expect.arrayContaining(['summary_inaccuracies', 'root_cause']),
    );
    const parsed = UtilityAnalysisSchema.parse({
      first_divergence: { step: 2, description: 'd' },
      missing_facts: [],
      distorted_facts: [],
      lost_state: [],
      summary_inaccuracies: ['claims the payment was sent; it was not'],
      root_cause: 'summary_inaccuracy',
      remediation: 'r',
    });
    expect(parsed.root_cause).toBe('summary_inaccuracy');
  });

  it('the compression analyzer reads the next turns, reasoning included', () => {
    expect(loadPrompt('analyzer-co.system.txt')).toMatch(
      /next\s+turns \(its reasoning and its actions\)/,
    );
  });
});

describe('renderTemplate', () => {
  it('throws an AconError naming the placeholder that has no value', () => {
    const err = (() => {
      try {
        renderTemplate('Hello {{who}}', {}, 'greeting.txt');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TemplateError);
    expect(err).toBeInstanceOf(AconError);
    expect((err as Error).message).toBe('greeting.txt: no value for {{who}}');
  });
});

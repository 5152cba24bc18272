import { describe, expect, it } from 'vitest';
import { parseDirectives } from '../guidelines/directives.js';
import { GUIDELINE_MAX_CHARS } from '../guidelines/schema.js';
import { parseJsonAnswer } from '../optimize/analysis.js';
import { GuidelineUpdateSchema } from '../domain/guideline-update.js';
import { type CompressionAnalysis } from '../domain/compression-analysis.js';
import { type UtilityAnalysis } from '../domain/utility-analysis.js';
import { renderPrompt, unresolvedPlaceholders } from '../prompts/template.js';
import { simGuidelineUpdate } from './updater.js';

const ut = (fields: string[]): UtilityAnalysis => ({
  first_divergence: { step: 3, description: 'd' },
  missing_facts: fields.map((field) => ({ fact: `a ${field}`, field, source_step: 1 })),
  distorted_facts: [],
  lost_state: [],
  summary_inaccuracies: [],
  root_cause: null,
  remediation: 'keep them',
});

const co = (unused: string[], needed: string[]): CompressionAnalysis => ({
  unused_fields: unused,
  unused_content: [],
  needed_fields: needed,
  remediation: 'drop them',
});

function prompt(phase: 'ut' | 'co', guideline: string, analyses: unknown[], candidate: number) {
  return renderPrompt(`updater-${phase}.user.txt`, {
    kind: 'obs',
    guideline,
    analyses: JSON.stringify(analyses, null, 2),
    candidate: String(candidate),
  });
}

function update(phase: 'ut' | 'co', guideline: string, analyses: unknown[], candidate = 0) {
  const answer = JSON.stringify(
    simGuidelineUpdate({ seed: 7, user: prompt(phase, guideline, analyses, candidate) }),
  );
  const parsed = parseJsonAnswer(answer, GuidelineUpdateSchema);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
}

const BASE = 'Rewrite the tool output so that it keeps what matters for the task.';

describe('simGuidelineUpdate', () => {
  it('adds the missing fields as a KEEP line with prose, keeping the current text', () => {
    const out = update('ut', BASE, [ut(['id', 'access_token']), ut(['id'])]);
    expect(out.guideline.startsWith(BASE)).toBe(true);
    expect(parseDirectives(out.guideline).keep).toEqual(['id', 'access_token']);
    expect(out.guideline).toMatch(/`id`/);
    expect(out.rationale).toContain('2 utility analyses');
    expect(unresolvedPlaceholders(out.guideline)).toEqual([]);
  });

  it('merges with the directives already there', () => {
    const out = update('ut', `${BASE}\nKEEP: title\nDROP: id, url`, [ut(['id'])]);
    expect(parseDirectives(out.guideline)).toEqual({
      keep: ['title', 'id'],
      drop: ['url'],
      maxItems: null,
    });
  });

  it('adds unused fields as DROP, never a needed or kept one', () => {
    const out = update('co', `${BASE}\n\nKEEP: id`, [
      co(['description', 'id', 'created_at'], ['title']),
      co(['title', 'url'], []),
    ]);
    expect(parseDirectives(out.guideline)).toEqual({
      keep: ['id'],
      drop: ['description', 'created_at', 'url'],
      maxItems: null,
    });
  });

  it('writes K distinct candidates, each the same for the same prompt', () => {
    const analyses = [co(['a1', 'a2', 'a3', 'a4', 'a5', 'a6'], [])];
    const candidates = [0, 1, 2, 3, 4].map((k) => update('co', BASE, analyses, k).guideline);
    expect(new Set(candidates).size).toBe(5);
    expect(update('co', BASE, analyses, 3)).toEqual(update('co', BASE, analyses, 3));
    // Every candidate drops the most frequent field.
    for (const c of candidates) expect(parseDirectives(c).drop).toContain('a1');
  });

  it('leaves the guideline unchanged when the analyses add nothing', () => {
    const out = update('ut', `${BASE}\n\nKEEP: id`, [ut(['id'])]);
    expect(out.guideline).toBe(`${BASE}\n\nKEEP: id`);
    expect(out.rationale).toContain('unchanged');
  });

  it('ignores analyses that do not match either schema', () => {
    const out = update('ut', BASE, [{ nonsense: true }, ut(['id'])]);
    expect(parseDirectives(out.guideline).keep).toEqual(['id']);
  });

  it('stays under the length limit by dropping older added prose', () => {
    let guideline = BASE;
    for (let round = 0; round < 80; round++) {
      const field = `field_number_${round}_with_a_long_name`;
      guideline = update('ut', guideline, [ut([field])], round).guideline;
    }
    expect(guideline.length).toBeLessThanOrEqual(GUIDELINE_MAX_CHARS);
    expect(guideline.startsWith(BASE)).toBe(true);
    expect(parseDirectives(guideline).keep).toContain('field_number_79_with_a_long_name');
  });
});

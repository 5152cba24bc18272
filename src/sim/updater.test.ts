import { describe, expect, it } from 'vitest';
import { GUIDELINE_MAX_CHARS } from '../guidelines/schema.js';
import { parseJsonAnswer } from '../optimize/analysis.js';
import { GuidelineUpdateSchema } from '../domain/guideline-update.js';
import { type CompressionAnalysis } from '../domain/compression-analysis.js';
import { type UtilityAnalysis } from '../domain/utility-analysis.js';
import { renderPrompt, unresolvedPlaceholders } from '../prompts/template.js';
import { simGuidelineUpdate } from './updater.js';
import { readGuideline, verdictFor } from './guideline-reading.js';

const kept = (g: string) => [...readGuideline(g).keepFields];
const dropped = (g: string) => [...readGuideline(g).dropFields];

const ut = (fields: string[]): UtilityAnalysis => ({
  first_divergence: { step: 3, description: 'd' },
  missing_facts: fields.map((field) => ({ fact: `a ${field}`, field, source_step: 1 })),
  distorted_facts: [],
  lost_state: [],
  summary_inaccuracies: [],
  root_cause: null,
  remediation: 'keep them',
});

const co = (unused: string[], needed: string[], content: string[] = []): CompressionAnalysis => ({
  unused_fields: unused,
  unused_content: content,
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
  it('adds a prose sentence keeping the missing fields, after the current text', () => {
    const out = update('ut', BASE, [ut(['id', 'access_token']), ut(['id'])]);
    expect(out.guideline.startsWith(BASE)).toBe(true);
    expect(out.guideline).not.toMatch(/^\s*(KEEP|DROP|MAX_ITEMS):/m);
    expect(kept(out.guideline)).toEqual(['id', 'access_token']);
    expect(out.rationale).toContain('2 utility analyses');
    expect(unresolvedPlaceholders(out.guideline)).toEqual([]);
  });

  it("rewrites an older guideline's machine lines as prose that says the same", () => {
    const out = update('ut', `${BASE}\nKEEP: title\nDROP: url_path`, [ut(['id'])]);
    expect(out.guideline).not.toContain('KEEP:');
    expect(kept(out.guideline)).toEqual(['title', 'id']);
    expect(dropped(out.guideline)).toEqual(['url_path']);
  });

  it('leaves out unused fields in prose, never a needed or kept one', () => {
    const out = update('co', `${BASE}\n\nAlways keep \`id\` exactly.`, [
      co(
        ['description', 'id', 'created_at', 'url_path'],
        ['title'],
        ['long `description` texts such as "A very long text"'],
      ),
      co(['title', 'url_path'], []),
    ]);
    expect(kept(out.guideline)).toEqual(['id']);
    // Long unused material goes on one run's evidence; a short field only when more than one
    // run left it unused (`created_at` was unused in one run only).
    expect(dropped(out.guideline)).toEqual(['url_path', 'description']);
  });

  it('writes K distinct candidates, each the same for the same prompt', () => {
    const fields = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
    const analyses = [co(fields, []), co(fields, [])];
    const candidates = [0, 1, 2, 3, 4].map((k) => update('co', BASE, analyses, k).guideline);
    expect(new Set(candidates).size).toBe(5);
    expect(update('co', BASE, analyses, 3)).toEqual(update('co', BASE, analyses, 3));
    // Every candidate drops the most frequent field.
    for (const c of candidates) expect(dropped(c)).toContain('a1');
  });

  it('writes drop sentences the compressors read as dropping the named fields only', () => {
    const analyses = [co(['type', 'network'], ['total']), co(['type', 'network'], [])];
    for (const k of [0, 1, 2, 3, 4]) {
      const reading = readGuideline(update('co', BASE, analyses, k).guideline);
      expect(reading.dropFields.size).toBeGreaterThan(0);
      for (const f of reading.dropFields) expect(['type', 'network']).toContain(f);
      // "they only cost tokens" is a reason, not "drop costs and tokens".
      expect([...reading.dropClasses]).toEqual([]);
      expect(verdictFor('total', reading)).toBe('default');
      expect(verdictFor('access_token', reading)).toBe('default');
    }
  });

  it('turns different samples of analyses into different guidelines', () => {
    const a = update('ut', BASE, [ut(['title']), ut(['amount'])], 0).guideline;
    const b = update('ut', BASE, [ut(['created_at']), ut(['amount'])], 0).guideline;
    expect(a).not.toBe(b);
    expect(kept(a)).toEqual(expect.arrayContaining(['title', 'amount']));
    expect(kept(b)).toEqual(expect.arrayContaining(['created_at', 'amount']));
  });

  it('asks for every list item when an analysis found lists cut', () => {
    const out = update('ut', `${BASE} Keep at most 3 items of a list.`, [ut(['items'])]);
    expect(readGuideline(`${BASE} Keep at most 3 items of a list.`).maxItems).toBe(3);
    expect(readGuideline(out.guideline).maxItems).toBeNull();
  });

  it('asks for every list item when a summary cut a list (no list limit to lift)', () => {
    const out = update('ut', BASE, [ut(['items', 'id'])]);
    expect(readGuideline(BASE).allItems).toBe(false);
    expect(readGuideline(out.guideline).allItems).toBe(true);
    // Said once: a guideline that asks for every item already is left as it is on that point.
    const again = update('ut', out.guideline, [ut(['items'])]);
    expect(again.guideline).toBe(out.guideline);
  });

  it('leaves the guideline unchanged when the analyses add nothing', () => {
    const current = `${BASE}\n\nKeep \`id\` verbatim.`;
    const out = update('ut', current, [ut(['id'])]);
    expect(out.guideline).toBe(current);
    expect(out.rationale).toContain('unchanged');
  });

  it('ignores analyses that do not match either schema', () => {
    const out = update('ut', BASE, [{ nonsense: true }, ut(['id'])]);
    expect(kept(out.guideline)).toEqual(['id']);
  });

  it('keeps, beside the fields the analyses name, the other fields of their kinds', () => {
    const { guideline } = update('ut', BASE, [ut(['play_count', 'created_at'])]);
    const reading = readGuideline(guideline);
    expect([...reading.keepClasses].sort()).toEqual(['dates', 'quantities']);
    // So a task that compares on another key of the same kind finds it kept.
    for (const key of ['size_bytes', 'duration_seconds', 'modified_at']) {
      expect(verdictFor(key, reading)).toBe('keep');
    }
    expect(verdictFor('description', reading)).toBe('default');
  });

  it('writes candidates that read differently from the same few analyses: some generalize, some do not', () => {
    const analyses = [ut(['play_count', 'title'])];
    const readings = [1, 2, 3, 4, 5].map((c) => {
      const r = readGuideline(update('ut', BASE, analyses, c).guideline);
      return JSON.stringify([[...r.keepFields].sort(), [...r.keepClasses].sort()]);
    });
    expect(new Set(readings).size).toBeGreaterThan(1);
    // Every candidate keeps the field the analyses name most.
    for (let c = 1; c <= 5; c++) {
      expect(readGuideline(update('ut', BASE, analyses, c).guideline).keepFields).toContain(
        'play_count',
      );
    }
  });

  it('does not leave out a field of the same kind as one an analysis needed', () => {
    const runs = [
      co(['total', 'total_pages', 'bio'], ['amount', 'has_more']),
      co(['total', 'total_pages', 'bio'], []),
    ];
    const { guideline } = update('co', BASE, runs);
    expect(dropped(guideline)).toEqual(['bio']);
  });

  it('stays under the length limit by dropping older added prose', () => {
    let guideline = BASE;
    for (let round = 0; round < 80; round++) {
      const field = `field_number_${round}_with_a_long_label`;
      guideline = update('ut', guideline, [ut([field])], round).guideline;
    }
    expect(guideline.length).toBeLessThanOrEqual(GUIDELINE_MAX_CHARS);
    expect(guideline.startsWith(BASE)).toBe(true);
    expect(kept(guideline)).toContain('field_number_79_with_a_long_label');
  });
});

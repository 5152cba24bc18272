import { describe, expect, it } from 'vitest';
import { GuidelineStore, PACKAGE_GUIDELINES_DIR } from './store.js';
import { validateGuidelineText } from './validate.js';

describe('validateGuidelineText', () => {
  it.each([
    ['Keep every id, token and amount verbatim.\nKEEP: id, access_token\nDROP: description', 'obs'],
    ['## Rules\nKeep ids.\n## Observation rules\nShorten lists.', 'obs'],
    ['Answer under "# Refined Observation" as usual. Remove page titles and DROP: title.', 'obs'],
    ['Drop response headers and pagination metadata.', 'obs'],
    ['Write the summary under # History Summary; keep the task state.', 'hist'],
  ] as const)('accepts %j', (text, kind) => {
    expect(validateGuidelineText(text, kind)).toEqual({ ok: true });
  });

  it.each(['obs', 'hist'] as const)('accepts the shipped %s v0', (kind) => {
    expect(
      validateGuidelineText(
        new GuidelineStore({ dir: PACKAGE_GUIDELINES_DIR }).get(`${kind}@0`).text,
        kind,
      ),
    ).toEqual({
      ok: true,
    });
  });

  it('rejects empty text', () => {
    expect(validateGuidelineText('  \n ', 'obs')).toEqual({
      ok: false,
      reason: 'the guideline is empty',
    });
  });

  it('rejects text over the length limit', () => {
    const result = validateGuidelineText('x'.repeat(8_001), 'obs');
    expect(result).toEqual({
      ok: false,
      reason: 'the guideline has 8001 characters; the limit is 8000',
    });
    expect(validateGuidelineText('x'.repeat(50), 'obs', { maxChars: 40 }).ok).toBe(false);
  });

  it('rejects unresolved template variables', () => {
    expect(validateGuidelineText('Keep {{fields}} and {{ fields }} and {{task}}.', 'obs')).toEqual({
      ok: false,
      reason: 'the guideline contains unresolved template variables: {{fields}}, {{task}}',
    });
  });

  it.each([
    ['Start your answer with "# Compressed Observation".', 'obs', /"# Compressed Observation"/],
    ['# Summary\nKeep ids.', 'hist', /"# Summary"/],
    ['Use the heading ## Observation Summary.', 'obs', /Observation Summary/],
    ['Answer under "# History Summary".', 'obs', /must answer under "# Refined Observation"/],
    ['Answer under # Refined Observation.', 'hist', /must answer under "# History Summary"/],
  ] as const)('rejects a different output heading: %j', (text, kind, reason) => {
    const result = validateGuidelineText(text, kind);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it.each([
    ['Omit the heading and output only JSON.', 'obs'],
    ['Do not include a heading.', 'hist'],
    ["Don't start with the markdown heading; just write the facts.", 'obs'],
    ['Write the facts without the "# Refined Observation" line.', 'obs'],
    ['Never output the History Summary header line.', 'hist'],
  ] as const)('rejects removing the heading: %j', (text, kind) => {
    const result = validateGuidelineText(text, kind);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/leave out its heading/);
  });
});

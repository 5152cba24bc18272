import { describe, expect, it } from 'vitest';
import { thrownOf } from '../../test/helpers/thrown.js';
import { GuidelineError } from '../errors.js';
import { parseGuideline, serializeGuideline } from './file.js';
import type { Guideline } from './schema.js';

const SEED = `---
id: obs-0000
kind: obs
parent: null
phase: seed
run: null
created: 2026-11-22
metrics: {}
---
Keep what matters.
`;

const catchError = (fn: () => unknown) => thrownOf(GuidelineError, fn);

function withFrontMatter(lines: string): string {
  return `---\n${lines}\n---\n\nSome text.\n`;
}

describe('parseGuideline', () => {
  it('reads the shipped seed format and defaults status to seed', () => {
    const g = parseGuideline(SEED, 'obs/0000-generic.md');
    expect(g).toEqual({
      id: 'obs-0000',
      kind: 'obs',
      parent: null,
      phase: 'seed',
      run: null,
      status: 'seed',
      created: '2026-11-22',
      metrics: {},
      text: 'Keep what matters.',
    });
  });

  it('defaults status to accepted outside the seed phase', () => {
    const g = parseGuideline(
      withFrontMatter(
        'id: obs-0001\nkind: obs\nparent: obs-0000\nphase: manual\nrun: null\ncreated: 2026-11-22',
      ),
      'f.md',
    );
    expect(g.status).toBe('accepted');
    expect(g.metrics).toEqual({});
  });

  it('round-trips every field through serializeGuideline', () => {
    const g: Guideline = {
      id: 'hist-0012',
      kind: 'hist',
      parent: 'hist-0007',
      phase: 'co',
      run: 'run-20261122-abc',
      status: 'rejected',
      created: '2026-11-22T03:16:00.000Z',
      metrics: { accuracy: 0.625, peakTokens: 3112, split: 'dev', tasks: 16, note: 'early stop' },
      analyses: ['lost the payment id at step 4', 'kept the full song list: never used'],
      rationale: 'Tighten: drop song lists.\nKeep ids.',
      text: 'Summarize.\n\n---\n\nKEEP: id, access_token\n# History Summary stays the heading.',
    };
    const text = serializeGuideline(g);
    expect(text.startsWith('---\nid: hist-0012\nkind: hist\nparent: hist-0007\n')).toBe(true);
    expect(
      text.endsWith(
        '\n---\n\nSummarize.\n\n---\n\nKEEP: id, access_token\n# History Summary stays the heading.\n',
      ),
    ).toBe(true);
    expect(parseGuideline(text, 'x.md')).toEqual(g);
  });

  it('accepts CRLF line endings', () => {
    expect(parseGuideline(SEED.replace(/\n/g, '\r\n'), 'f.md').id).toBe('obs-0000');
  });

  it.each([
    ['kind: obz', 'kind', /obs or hist/],
    ['id: obs-3', 'id', /obs-0003/],
    ['id: hist-0003', 'id', /does not start with its kind "obs-"/],
    ['parent: hist-0000', 'parent', /not a obs guideline/],
    ['phase: training', 'phase', /seed, ut, co or manual/],
    ['created: yesterday', 'created', /ISO date/],
    ['metrics: {accuracy: 1.5}', 'metrics.accuracy', /accuracy/],
    ['metrics: {peakTokens: lots}', 'metrics.peakTokens', /number/],
    ['status: maybe', 'status', /seed, accepted or rejected/],
  ])('names the field and the fix for %s', (line, field, fix) => {
    const base: Record<string, string> = {
      id: 'id: obs-0001',
      kind: 'kind: obs',
      parent: 'parent: obs-0000',
      phase: 'phase: ut',
      run: 'run: null',
      created: 'created: 2026-11-22',
    };
    const key = line.split(':')[0] ?? '';
    base[key] = line;
    const err = catchError(() =>
      parseGuideline(withFrontMatter(Object.values(base).join('\n')), 'guidelines/obs/0001-x.md'),
    );
    expect(err.file).toBe('guidelines/obs/0001-x.md');
    expect(err.field).toBe(field);
    expect(err.detail).toMatch(fix);
  });

  it('reports a missing field as missing', () => {
    const err = catchError(() =>
      parseGuideline(
        withFrontMatter('id: obs-0001\nkind: obs\nparent: null\nrun: null\ncreated: 2026-11-22'),
        'f.md',
      ),
    );
    expect(err.field).toBe('phase');
    expect(err.detail).toContain('missing');
  });

  it('rejects a file without front matter', () => {
    const err = catchError(() => parseGuideline('Keep ids.\n', 'f.md'));
    expect(err.field).toBe('front matter');
    expect(err.message).toMatch(/^f\.md: front matter: no front matter/);
  });

  it('rejects invalid YAML and a non-mapping front matter', () => {
    expect(catchError(() => parseGuideline('---\nid: [\n---\ntext\n', 'f.md')).detail).toMatch(
      /invalid YAML/,
    );
    expect(catchError(() => parseGuideline('---\n- a\n---\ntext\n', 'f.md')).detail).toMatch(
      /expected a YAML mapping/,
    );
  });

  it('rejects an empty text', () => {
    const err = catchError(() =>
      parseGuideline(SEED.replace('Keep what matters.\n', '\n  \n'), 'f.md'),
    );
    expect(err.field).toBe('text');
    expect(err.detail).toMatch(/empty/);
  });
});

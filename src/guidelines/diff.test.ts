import { describe, expect, it } from 'vitest';
import { colorPatch, textsDiffer, unifiedDiff, wordDiff } from './diff.js';

const ANSI = '\u001b[';
const OLD = 'Keep what matters.\nBe concise.\nKeep it faithful.\n';
const NEW = 'Keep what matters.\nBe very concise.\nKeep it faithful.\nKEEP: id, access_token\n';

describe('unifiedDiff', () => {
  it('prints a plain unified diff without ANSI codes when colour is off', () => {
    const out = unifiedDiff(
      { label: 'obs-0000', text: OLD, header: 'guidelines/obs/0000-generic.md' },
      { label: 'obs-0002', text: NEW },
      { color: false },
    );
    expect(out).not.toContain(ANSI);
    expect(out).toMatchInlineSnapshot(`
      "--- obs-0000	guidelines/obs/0000-generic.md
      +++ obs-0002
      @@ -1,3 +1,4 @@
       Keep what matters.
      -Be concise.
      +Be very concise.
       Keep it faithful.
      +KEEP: id, access_token
      "
    `);
  });

  it('colours added, removed and hunk lines when colour is on', () => {
    const out = unifiedDiff({ label: 'a', text: OLD }, { label: 'b', text: NEW }, { color: true });
    expect(out).toContain('\u001b[32m+Be very concise.\u001b[39m');
    expect(out).toContain('\u001b[31m-Be concise.\u001b[39m');
    expect(out).toContain('\u001b[36m@@ -1,3 +1,4 @@\u001b[39m');
  });

  it('treats a missing trailing newline as no change', () => {
    expect(textsDiffer('a\nb', 'a\nb\n')).toBe(false);
    expect(
      unifiedDiff({ label: 'a', text: 'x' }, { label: 'b', text: 'x\n' }, { color: false }),
    ).toBe('');
  });

  it('honours the context size', () => {
    const a = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const b = a.replace('line 10', 'line ten');
    const out = unifiedDiff(
      { label: 'a', text: a },
      { label: 'b', text: b },
      { color: false, context: 1 },
    );
    expect(out).toContain('@@ -10,3 +10,3 @@');
  });

  it('leaves a patch unchanged when colour is off', () => {
    expect(colorPatch('+a\n-b', false)).toBe('+a\n-b');
  });
});

describe('wordDiff', () => {
  it('marks changed words inline without colour', () => {
    expect(
      wordDiff('Be concise. Keep ids.', 'Be very concise. Keep all ids.', { color: false }),
    ).toBe('Be {+very +}concise. Keep {+all +}ids.\n');
    expect(wordDiff('Drop tokens.', 'Keep tokens.', { color: false })).toBe(
      '[-Drop-]{+Keep+} tokens.\n',
    );
  });

  it('colours added words green and removed words red', () => {
    const out = wordDiff('Drop tokens.', 'Keep tokens.', { color: true });
    expect(out).toContain('\u001b[32mKeep\u001b[39m');
    expect(out).toContain('\u001b[31m\u001b[9mDrop\u001b[29m\u001b[39m');
  });

  it('colours each line of a multi-line change separately', () => {
    const out = wordDiff('a\n', 'a\nb\nc\n', { color: true });
    for (const line of out.split('\n').filter((l) => l.includes('b') || l.includes('c'))) {
      expect(line.startsWith('\u001b[32m') && line.endsWith('\u001b[39m')).toBe(true);
    }
  });
});

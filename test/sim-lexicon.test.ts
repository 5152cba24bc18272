import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LEXICON_FILE, buildLexicon, renderLexicon } from '../scripts/sim/gen-lexicon.js';
import { V0_PARAPHRASES } from '../scripts/bench/v0-paraphrases.js';
import { readGuideline } from '../src/sim/guideline-reading.js';

/** The body of a shipped v0 guideline (the text after its front matter). */
function v0(kind: 'obs' | 'hist'): string {
  const file = readFileSync(
    new URL(`../guidelines/${kind}/0000-generic.md`, import.meta.url),
    'utf8',
  );
  return file.slice(file.indexOf('\n---\n', 4) + 5);
}

describe('the sim lexicon', () => {
  it('is what scripts/sim/gen-lexicon.ts writes from WordNet', () => {
    expect(readFileSync(LEXICON_FILE, 'utf8')).toBe(renderLexicon(buildLexicon()));
  });

  it.each(
    (['obs', 'hist'] as const).flatMap((kind) =>
      V0_PARAPHRASES[kind].map((text, i) => [kind, i + 1, text] as const),
    ),
  )('reads rewording %s-%i of v0 as v0', (kind, _n, text) => {
    expect(V0_PARAPHRASES[kind].length).toBeGreaterThanOrEqual(5);
    expect(readGuideline(text)).toEqual(readGuideline(v0(kind)));
  });

  it('reads v0 as asking for what its prose asks', () => {
    const obs = readGuideline(v0('obs'));
    expect([obs.shortenTexts, obs.shortenLists, obs.cutLists, obs.exact]).toEqual([
      true,
      true,
      true,
      true,
    ]);
    const hist = readGuideline(v0('hist'));
    // "…, and what is | left to do" asks for the goal across the line wrap.
    expect([hist.progress, hist.goal, hist.stale, hist.shortenTexts]).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(hist.exact).toBe(false);
  });
});

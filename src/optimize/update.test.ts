import { describe, expect, it } from 'vitest';
import { withoutRepeats, type CandidateProposal } from './update.js';

const ok = (index: number, text: string): CandidateProposal => ({
  index,
  ok: true,
  text,
  rationale: 'r',
});

describe('withoutRepeats', () => {
  const parent = { id: 'obs-0000', text: 'Keep ids.\nDrop the rest.' };

  it('keeps a proposal out of the evaluation when it repeats its parent, up to whitespace', () => {
    const [p] = withoutRepeats([ok(0, 'Keep ids. Drop\n  the rest.')], parent);
    expect(p).toEqual({
      index: 0,
      ok: false,
      reason: 'unchanged: the same text as its parent obs-0000; not evaluated',
      text: '',
    });
  });

  it('keeps the first of two equal proposals and names it in the other one', () => {
    const out = withoutRepeats(
      [ok(0, 'Keep ids and dates.'), ok(1, 'Keep urls.'), ok(2, 'Keep ids and  dates.')],
      parent,
    );
    expect(out.map((p) => p.ok)).toEqual([true, true, false]);
    expect(out[2]).toMatchObject({ reason: 'the same text as candidate 1; not evaluated' });
  });

  it('leaves invalid proposals and different texts as they are', () => {
    const invalid: CandidateProposal = { index: 0, ok: false, reason: 'bad', text: 'Keep ids.' };
    const out = withoutRepeats([invalid, ok(1, 'Keep ids.'), ok(2, 'Keep names.')], parent);
    expect(out).toEqual([invalid, ok(1, 'Keep ids.'), ok(2, 'Keep names.')]);
  });
});

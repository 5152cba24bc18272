import { describe, expect, it } from 'vitest';
import { readGuideline } from './guideline-reading.js';
import { hitsIn } from './lexicon.js';

const concepts = (text: string) => hitsIn(text).map((h) => [...h.concepts].sort().join('+'));

describe('hitsIn', () => {
  it('reads words through their stems and irregular forms', () => {
    expect(concepts('omitted')).toEqual(['drop']);
    expect(concepts('They left out the timestamps')).toEqual(['drop', 'dates']);
    expect(concepts('steps carried out')).toEqual(['perform']);
  });

  it('takes the longest phrase at each place', () => {
    expect(concepts('no longer')).toEqual(['noLonger']);
    expect(concepts("don't drop")).toEqual(['negation', 'drop']);
    expect(concepts('api keys')).toEqual(['credentials']);
  });
});

describe('readGuideline', () => {
  it('maps synonyms onto actions and field classes', () => {
    const r = readGuideline('Get rid of hyperlinks. Hang on to identifiers and monetary values.');
    expect([...r.dropClasses]).toEqual(['urls']);
    expect([...r.keepClasses].sort()).toEqual(['amounts', 'identifiers']);
  });

  it('keeps what a negated drop names, exactly when it forbids rewording', () => {
    const r = readGuideline('Never rephrase or leave off passwords.');
    expect([...r.keepClasses]).toEqual(['credentials']);
    expect(r.exact).toBe(true);
  });

  it('gives words outside the lexicon no effect', () => {
    const empty = readGuideline('');
    expect(readGuideline('Frobnicate the wibbles; zorp every blarg.')).toEqual(empty);
  });

  it('reads a line break inside a sentence as a wrap, a list item as a new sentence', () => {
    expect(readGuideline('Keep what is\nleft to do.').goal).toBe(true);
    const r = readGuideline('- Keep ids\n- Drop urls');
    expect([...r.keepClasses, ...r.dropClasses]).toEqual(['identifiers', 'urls']);
  });
});

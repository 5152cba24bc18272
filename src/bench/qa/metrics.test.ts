import { describe, expect, it } from 'vitest';
import {
  exactMatch,
  isF1Drop,
  normalizeAnswer,
  scoreObjective,
  scoreTask,
  tokenF1,
} from './metrics.js';

describe('normalizeAnswer (SQuAD)', () => {
  it.each([
    ['The Eiffel  Tower', 'eiffel tower'],
    ['an Apple a day', 'apple day'],
    ['  14 March, 1873. ', '14 march 1873'],
    ['"Kuhn Press"', 'kuhn press'],
    ['48,213', '48213'],
    ['Theatre of the Absurd', 'theatre of absurd'],
    ['O’Neil–Smith', 'oneilsmith'],
    ['', ''],
  ])('normalises %j to %j', (input, expected) => {
    expect(normalizeAnswer(input)).toBe(expected);
  });
});

describe('exactMatch and tokenF1', () => {
  it('match after normalisation only', () => {
    expect(exactMatch('the Kuhn Press.', 'Kuhn Press')).toBe(1);
    expect(exactMatch('Kuhn Press Ltd', 'Kuhn Press')).toBe(0);
  });

  it('gives partial credit for overlapping tokens', () => {
    // precision 2/3, recall 2/2 → F1 0.8
    expect(tokenF1('Kuhn Press Ltd', 'Kuhn Press')).toBeCloseTo(0.8, 10);
    expect(tokenF1('9 June 1829', '14 March 1829')).toBeCloseTo(1 / 3, 10);
    expect(tokenF1('1830', '1829')).toBe(0);
  });

  it('counts repeated tokens once per occurrence', () => {
    expect(tokenF1('press press', 'press')).toBeCloseTo(2 / 3, 10);
  });

  it('scores an empty prediction 0 and two empty answers 1', () => {
    expect(tokenF1('', 'Kuhn Press')).toBe(0);
    expect(exactMatch('', 'Kuhn Press')).toBe(0);
    expect(tokenF1('the', '')).toBe(1);
  });

  it('takes the best gold answer', () => {
    expect(scoreObjective('NYC', ['New York City', 'NYC'])).toEqual({ exactMatch: 1, f1: 1 });
  });
});

describe('scoreTask', () => {
  it('averages per question and treats missing answers as empty', () => {
    const s = scoreTask(['Kuhn Press', 'Kuhn'], [['Kuhn Press'], ['Kuhn Press'], ['1873']]);
    expect(s.objectives.map((o) => o.exactMatch)).toEqual([1, 0, 0]);
    expect(s.exactMatch).toBeCloseTo(1 / 3, 10);
    expect(s.f1).toBeCloseTo((1 + 2 / 3 + 0) / 3, 10);
  });
});

describe('isF1Drop (the QA contrastive-pair rule)', () => {
  it('fires only when compressed F1 is more than 0.05 below full', () => {
    expect(isF1Drop(0.9, 0.8)).toBe(true);
    expect(isF1Drop(0.9, 0.85)).toBe(false);
    expect(isF1Drop(0.9, 0.86)).toBe(false);
    expect(isF1Drop(0.5, 0.9)).toBe(false);
  });
});

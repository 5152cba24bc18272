import { describe, expect, it } from 'vitest';
import type { PairRule } from '../bench/types.js';
import type { RolloutRow } from '../domain/index.js';
import { ConfigSchema } from '../config/schema.js';
import { contrastivePairs, pairStepsRatio } from './contrastive.js';

function row(task: string, success: boolean, steps: number, score = success ? 1 : 0): RolloutRow {
  return { task_id: task, success, steps, score } as RolloutRow;
}

describe('contrastivePairs', () => {
  const full = [row('a', true, 4), row('b', true, 4), row('c', false, 4), row('d', true, 4)];
  const comp = [row('a', false, 5), row('b', true, 6), row('c', false, 9), row('d', true, 5)];

  it('pairs full successes with compressed failures and elongations', () => {
    const pairs = contrastivePairs(full, comp, { stepsRatio: 1.5 });
    expect(pairs.map((p) => [p.taskId, p.kind])).toEqual([
      ['a', 'failure'],
      ['b', 'elongation'],
    ]);
  });

  it('leaves elongations out without a steps ratio', () => {
    const pairs = contrastivePairs(full, comp, { stepsRatio: null });
    expect(pairs.map((p) => p.taskId)).toEqual(['a']);
  });

  it("uses the benchmark's rule when it has one, with the default rule at hand", () => {
    // QA-style rule (issue 14): a score drop of more than 0.05 is a failure even when both succeeded.
    const rule: PairRule = (f, c, { defaultPair }) =>
      f.score - c.score > 0.05 ? 'failure' : defaultPair(f, c);
    const pairs = contrastivePairs(
      [row('q1', true, 3, 0.9), row('q2', true, 3, 0.9), row('q3', true, 2, 0.8)],
      [row('q1', true, 3, 0.8), row('q2', true, 3, 0.88), row('q3', true, 4, 0.8)],
      { stepsRatio: 1.5, rule },
    );
    expect(pairs.map((p) => [p.taskId, p.kind])).toEqual([
      ['q1', 'failure'],
      ['q3', 'elongation'],
    ]);
  });

  it('makes failure pairs only by default; elongation pairs when optimize.include_elongation', () => {
    const defaults = ConfigSchema.parse({}).optimize;
    const byDefault = contrastivePairs(full, comp, { stepsRatio: pairStepsRatio(defaults) });
    expect(byDefault.map((p) => p.kind)).toEqual(['failure']);
    const optIn = { ...defaults, include_elongation: true };
    const withElongation = contrastivePairs(full, comp, { stepsRatio: pairStepsRatio(optIn) });
    expect(withElongation.map((p) => p.kind)).toEqual(['failure', 'elongation']);
  });

  it('reads configs of runs recorded before the switch (max_analyses) with elongation pairs on', () => {
    const old = ConfigSchema.parse({ optimize: { max_analyses: 12 } }).optimize;
    expect(old).toMatchObject({ feedback_sample: 12, include_elongation: true });
  });
});

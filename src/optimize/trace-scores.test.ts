import { describe, expect, it } from 'vitest';
import type { ReplayStep, TraceReplay } from '../experiment/index.js';
import { decideUtility, DEFAULT_DECISION } from './decision-rule.js';
import { actionMessage, contrastiveStep, counterfactualTrajectory } from './trace-analyses.js';
import { better, conversationScore, paired } from './trace-scores.js';

const pay = { kind: 'tools' as const, calls: [{ name: 'pay', args: '{"to":"ann"}' }] };
const refund = { kind: 'tools' as const, calls: [{ name: 'refund', args: '{"to":"ann"}' }] };
const probe = { value: 'pay_93xk', step: 1, seenAt: 3 };

function step(s: number, over: Partial<ReplayStep> = {}): ReplayStep {
  return {
    step: s,
    compressed: true,
    agrees: true,
    recorded: pay,
    replayed: pay,
    kept: [],
    lost: [],
    viewTokens: 100,
    fullTokens: 200,
    ...over,
  };
}

const replay = (traceId: string, steps: ReplayStep[]): TraceReplay => ({
  traceId,
  steps,
  events: [],
});

describe('trace stage: contrastive steps', () => {
  it('takes the first disagreeing step, else the first that lost a probe, else none', () => {
    const lostAt1 = step(1, { lost: [probe] });
    const differsAt2 = step(2, { agrees: false, replayed: refund });
    expect(contrastiveStep(replay('a', [step(0), lostAt1, differsAt2]))?.step).toBe(2);
    expect(contrastiveStep(replay('b', [step(0), lostAt1]))?.step).toBe(1);
    expect(contrastiveStep(replay('c', [step(0), step(1)]))).toBeNull();
  });

  it('ends the counterfactual trajectory with the replayed action, unanswered', () => {
    const full = {
      system: 's',
      task: 't',
      turns: [0, 1, 2].map((i) => ({
        assistant: actionMessage(pay, i),
        observations: [{ role: 'tool' as const, tool_call_id: `replay_${i}_0`, content: 'ok' }],
      })),
    };
    const { trajectory, last } = counterfactualTrajectory(
      full,
      step(1, { agrees: false, replayed: refund }),
    );
    expect(trajectory.turns).toHaveLength(2);
    expect(trajectory.turns[0]).toEqual(full.turns[0]);
    expect(last.tool_calls?.[0]?.function.name).toBe('refund');
    expect(trajectory.turns[1]!.observations).toEqual([]);
  });
});

describe('trace stage: conversations as paired units', () => {
  it('scores a conversation by agreement, then probe recall', () => {
    expect(conversationScore(replay('a', [step(0), step(1, { agrees: false })]))).toEqual([0.5, 1]);
    expect(conversationScore(replay('b', [step(0, { compressed: false })]))).toEqual([1, 1]);
    expect(
      conversationScore(replay('c', [step(0, { kept: [probe], lost: [probe, probe] })]))[1],
    ).toBeCloseTo(1 / 3);
  });

  it('counts a conversation as won by whichever pair scored higher on it; ties are concordant', () => {
    const parent = [
      replay('a', [step(0, { agrees: false }), step(1)]),
      replay('b', [step(0)]),
      replay('c', [step(0, { lost: [probe] })]),
    ];
    const candidate = [
      replay('a', [step(0), step(1)]),
      replay('b', [step(0)]),
      replay('c', [step(0, { lost: [probe] })]),
    ];
    const pairs = paired(parent, candidate);
    expect(pairs.map((p) => [p.taskId, p.parentSuccess, p.candidateSuccess])).toEqual([
      ['a', false, true],
      ['b', true, true],
      ['c', true, true],
    ]);
    // One win and no loss is no evidence at alpha 0.1: the exact sign test needs four.
    expect(decideUtility(pairs, DEFAULT_DECISION).accepted).toBe(false);
    const many = Array.from({ length: 5 }, (_, i) => ({ ...pairs[0]!, taskId: `x${i}` }));
    expect(decideUtility(many, DEFAULT_DECISION).accepted).toBe(true);
  });

  it('orders candidates by agreement, then probe recall, then fewer peak tokens', () => {
    const m = (agreement: number, probeRecall: number, peakTokens: number) => ({
      traces: 1,
      steps: 1,
      compressedSteps: 1,
      agreeingSteps: 1,
      agreement,
      probes: 1,
      probesKept: 1,
      probeRecall,
      peakTokens,
      fullPeakTokens: 1,
      compressions: 1,
      failedCompressions: 0,
    });
    expect(better(m(0.9, 0.5, 900), m(0.8, 1, 100))).toBe(true);
    expect(better(m(0.9, 0.9, 900), m(0.9, 0.8, 100))).toBe(true);
    expect(better(m(0.9, 0.9, 100), m(0.9, 0.9, 900))).toBe(true);
    expect(better(m(0.9, 0.9, 900), m(0.9, 0.9, 900))).toBe(false);
  });
});

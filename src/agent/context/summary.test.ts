import { describe, expect, it } from 'vitest';
import {
  charTokens,
  historySummary,
  ScriptedLlm,
  trajectoryOf,
} from '../../../test/fakes/scripted-llm.js';
import type { ChatMessage } from '../../llm/types.js';
import type { Trajectory } from '../../domain/trajectory.js';
import { flattenTurns, summaryMessage } from './messages.js';
import { SummaryStrategy } from './summary.js';

/** A summarizer that names the turns it folded: "S(a-b)". */
function summarizer() {
  return new ScriptedLlm({
    hist_compressor: (req) => {
      const history = req.messages[1]!.content!;
      const numbers = [...history.matchAll(/\[Turn (\d+)\]/g)].map((m) => Number(m[1]));
      return historySummary(`S(${numbers[0]}-${numbers.at(-1)})`);
    },
  });
}

function deps(llm: ScriptedLlm) {
  return { llm, callCtx: { runId: 'r' }, maxOutputRetries: 1, tokens: charTokens };
}

/**
 * Seed 001 §3.1 eqs. 5–6 written out: t_last = 0 at the start; at the beginning of turn t,
 * if (t-1) - t_last reaches N + M, the summary folds T_{t_last+1} … T_{t-1-M}, t_last = t-1-M.
 */
function seedStates(turns: number, n: number, m: number) {
  let tLast = 0;
  let summary: string | null = null;
  const states: { tLast: number; summary: string | null; folded: [number, number] | null }[] = [];
  for (let t = 1; t <= turns + 1; t++) {
    let folded: [number, number] | null = null;
    if (t - 1 - tLast >= n + m) {
      folded = [tLast + 1, t - 1 - m];
      summary = `S(${tLast + 1}-${t - 1 - m})`;
      tLast = t - 1 - m;
    }
    states.push({ tLast, summary, folded });
  }
  return states;
}

function seedView(
  full: Trajectory,
  t: number,
  tLast: number,
  summary: string | null,
): ChatMessage[] {
  const head: ChatMessage[] = [
    { role: 'system', content: 'SYSTEM' },
    { role: 'user', content: 'TASK' },
  ];
  const turns = flattenTurns(full.turns.slice(tLast, t - 1));
  return summary === null
    ? [...head, ...turns]
    : [...head, summaryMessage(summary, tLast), ...turns];
}

describe('SummaryStrategy', () => {
  it('matches the seed definition turn by turn (N = 21, M = 10)', async () => {
    const llm = summarizer();
    const strategy = new SummaryStrategy(21, 10, deps(llm));
    const full = trajectoryOf(80);
    const states = seedStates(80, 21, 10);
    for (let t = 1; t <= 81; t++) {
      const done = t - 1;
      const view = await strategy.view({ ...full, turns: full.turns.slice(0, done) }, done);
      const want = states[t - 1]!;
      expect(view.messages, `turn ${t}`).toEqual(seedView(full, t, want.tLast, want.summary));
      expect(
        view.events.map((e) => e.output),
        `turn ${t}`,
      ).toEqual(want.folded ? [`S(${want.folded[0]}-${want.folded[1]})`] : []);
    }
    // Three summaries in 80 turns: at 31, 52 and 73 accumulated turns, N = 21 turns each.
    expect(llm.calls.map((c) => c.ctx.step)).toEqual([31, 52, 73]);
  });

  it('triggers exactly when N + M turns have accumulated and keeps the last M verbatim', async () => {
    const llm = summarizer();
    const strategy = new SummaryStrategy(21, 10, deps(llm));
    const full = trajectoryOf(31);

    const before = await strategy.view({ ...full, turns: full.turns.slice(0, 30) }, 30);
    expect(before.events).toEqual([]);
    expect(llm.calls).toHaveLength(0);

    const at = await strategy.view(full, 31);
    expect(at.events).toHaveLength(1);
    expect(at.events[0]).toMatchObject({
      kind: 'summary',
      step: 31,
      failed: false,
      guidelineId: null,
    });
    expect(at.messages.slice(0, 3)).toEqual([
      { role: 'system', content: 'SYSTEM' },
      { role: 'user', content: 'TASK' },
      summaryMessage('S(1-21)', 21),
    ]);
    expect(at.messages.slice(3)).toEqual(flattenTurns(full.turns.slice(21)));
    expect(at.messages.slice(3).filter((m) => m.role === 'assistant')).toHaveLength(10);
  });

  it('folds the previous summary into the next one', async () => {
    const llm = summarizer();
    const strategy = new SummaryStrategy(2, 1, deps(llm));
    const full = trajectoryOf(5);
    for (let done = 0; done <= 5; done++) {
      await strategy.view({ ...full, turns: full.turns.slice(0, done) }, done);
    }
    const users = llm.calls.map((c) => c.req.messages[1]!.content!);
    expect(users[0]).toContain('<previous_summary>\n(none)\n</previous_summary>');
    expect(users[1]).toContain('<previous_summary>\nS(1-2)\n</previous_summary>');
    expect(users[1]).toContain('[Turn 3]');
    expect(users[1]).not.toContain('[Turn 2]');
  });

  it('keeps the turns when the summarizer fails, and tries again next step', async () => {
    const llm = new ScriptedLlm({
      hist_compressor: ['no heading', 'still none', historySummary('ok')],
    });
    const strategy = new SummaryStrategy(2, 1, deps(llm));
    const full = trajectoryOf(4);
    const failed = await strategy.view({ ...full, turns: full.turns.slice(0, 3) }, 3);
    expect(failed.events).toMatchObject([{ kind: 'summary', failed: true }]);
    expect(failed.messages).toHaveLength(2 + 3 * 2);
    const next = await strategy.view(full, 4);
    expect(next.events).toMatchObject([{ failed: false, output: 'ok' }]);
    expect(next.messages[2]).toEqual(summaryMessage('ok', 3));
  });

  it('summarizes on demand for reactive compression, keeping the last M', async () => {
    const llm = summarizer();
    const strategy = new SummaryStrategy(21, 10, deps(llm));
    const full = trajectoryOf(15);
    const events = await strategy.compressNow(full, 15);
    expect(events).toMatchObject([{ kind: 'reactive', output: 'S(1-5)', failed: false }]);
    const view = await strategy.view(full, 15);
    expect(view.messages[2]).toEqual(summaryMessage('S(1-5)', 5));
    expect(view.messages.slice(3)).toEqual(flattenTurns(full.turns.slice(5)));
  });
});

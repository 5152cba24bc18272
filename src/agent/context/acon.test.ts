import { describe, expect, it } from 'vitest';
import {
  charTokens,
  historySummary,
  refined,
  ScriptedLlm,
  toolTurn,
  trajectoryOf,
} from '../../../test/fakes/scripted-llm.js';
import { InvalidInputError } from '../../errors.js';
import type { Trajectory } from '../../domain/trajectory.js';
import type { ChatMessage } from '../../llm/types.js';
import { AconStrategy, type AconSettings } from './acon.js';
import { createStrategy, defaultContextOptions } from './index.js';
import { flattenTurns, summaryMessage } from './messages.js';

const guidelines = {
  obs: { id: 'obs-0003', text: 'KEEP: id' },
  hist: { id: 'hist-0002', text: 'Keep ids.' },
};

function settings(over: Partial<AconSettings> = {}): AconSettings {
  return { tObs: 100, tHist: 10_000, keepLast: 1, obsSessionTokens: 10_000, guidelines, ...over };
}

function deps(llm: ScriptedLlm, maxOutputRetries = 1) {
  return { llm, callCtx: { runId: 'r' }, maxOutputRetries, tokens: charTokens };
}

/** Compressors that answer "short<turn>" / "H<calls>" so the test can see where text came from. */
function compressors() {
  let hist = 0;
  return new ScriptedLlm({
    obs_compressor: (req) => {
      const obs = /<observation>\n([\s\S]*)\n<\/observation>/.exec(req.messages[1]!.content!)![1]!;
      return refined(`short(${obs.slice(0, 8)})`);
    },
    hist_compressor: () => historySummary(`H${++hist}`),
  });
}

const prefix = (t: Trajectory, n: number): Trajectory => ({ ...t, turns: t.turns.slice(0, n) });

describe('AconStrategy observation compression', () => {
  const full = trajectoryOf(4, (i) => (i % 2 === 0 ? `big ${i} `.repeat(30) : `small ${i}`));

  it('compresses only observations above T_obs and shows the rewrite instead', async () => {
    const llm = compressors();
    const strategy = new AconStrategy('acon', settings(), deps(llm));
    const view = await strategy.view(full, 4);
    expect(llm.callsOf('obs_compressor')).toHaveLength(2);
    expect(view.events.map((e) => [e.kind, e.inputTokens, e.guidelineId])).toEqual([
      ['obs', 180, 'obs-0003'],
      ['obs', 180, 'obs-0003'],
    ]);
    const tools = view.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(tools).toEqual(['small 1', 'short(big 2 bi)', 'small 3', 'short(big 4 bi)']);
  });

  it('compresses each observation once and keeps the rewrite in every later view', async () => {
    const llm = compressors();
    const strategy = new AconStrategy('acon', settings(), deps(llm));
    for (let done = 0; done <= 4; done++) await strategy.view(prefix(full, done), done);
    const again = await strategy.view(full, 4);
    expect(llm.callsOf('obs_compressor').map((c) => c.ctx.step)).toEqual([2, 4]);
    expect(again.events).toEqual([]);
    expect(again.messages.filter((m) => m.role === 'tool').map((m) => m.content)[1]).toBe(
      'short(big 2 bi)',
    );
  });

  it('counts an observation at most T_obs once, not again at every later step', async () => {
    const counted: string[] = [];
    const tokens = {
      ...charTokens,
      countTokens: (text: string) => (counted.push(text), charTokens.countTokens(text)),
    };
    const strategy = new AconStrategy('acon', settings(), { ...deps(compressors()), tokens });
    const growing = prefix(full, 0);
    for (const turn of full.turns) {
      growing.turns.push(turn);
      await strategy.view(growing, growing.turns.length);
    }
    // The short observations are turn 1's and turn 3's; four views followed each of them.
    expect(counted.filter((t) => t === 'small 1')).toHaveLength(1);
    expect(counted.filter((t) => t === 'small 3')).toHaveLength(1);
  });

  it('shows the same message objects step after step while nothing about them changes', async () => {
    // Token counts, request digests and the simulated agent's records are remembered per message
    // object (issue #28): a rewritten observation or a summary rebuilt at every step misses them.
    const llm = compressors();
    const strategy = new AconStrategy('acon', settings({ tHist: 150 }), deps(llm));
    // One trajectory that grows, as in the agent loop.
    const growing = prefix(full, 3);
    const before: ChatMessage[] = (await strategy.view(growing, 3)).messages;
    growing.turns.push(full.turns[3]!);
    const after: ChatMessage[] = (await strategy.view(growing, 4)).messages;
    expect(before.map((m) => m.content)).toContain('short(big 2 bi)');
    expect(after.length).toBeGreaterThan(before.length);
    // Every message of the step before, the rewritten observation included, is the same object.
    expect(before.filter((m) => !after.includes(m))).toEqual([]);
  });

  it('keeps the summary message object until the summary changes', async () => {
    const llm = compressors();
    const strategy = new AconStrategy('acon', settings({ tHist: 100 }), deps(llm));
    const first = await strategy.view(prefix(full, 4), 4);
    const again = await strategy.view(prefix(full, 4), 4);
    const summary = first.messages[2]!;
    expect(summary).toEqual(summaryMessage('H1', 3));
    expect(again.messages[2]).toBe(summary);
  });

  it('shows the compressor the task and the whole current session, ending with the producing action', async () => {
    const llm = compressors();
    const strategy = new AconStrategy('acon', settings(), deps(llm));
    await strategy.view(full, 4);
    const user = llm.callsOf('obs_compressor')[1]!.req.messages[1]!.content!;
    const session = /<session>\n([\s\S]*)\n<\/session>/.exec(user)![1]!;
    expect(user).toContain('<task>\nTASK\n</task>');
    expect(session).toMatch(/^\[Turn 1\]\nAssistant: reasoning 1/);
    expect(session).toContain('Observation (lookup): short(big 2 bi)');
    expect(session).toMatch(/\[Turn 4\]\nAssistant: reasoning 4\nAction: lookup\(\{"n":4\}\)$/);
  });

  it('leaves the oldest turns of the session out beyond obs_session_tokens', async () => {
    const llm = compressors();
    const strategy = new AconStrategy('acon', settings({ obsSessionTokens: 200 }), deps(llm));
    await strategy.view(full, 4);
    const user = llm.callsOf('obs_compressor')[1]!.req.messages[1]!.content!;
    const session = /<session>\n([\s\S]*)\n<\/session>/.exec(user)![1]!;
    expect(session).not.toContain('[Turn 1]');
    expect(session).toContain('[Turn 3]');
    expect(session).toMatch(/\[Turn 4\]\nAssistant: reasoning 4\nAction: lookup\(\{"n":4\}\)$/);
  });

  it('puts the history summary first when the session starts after a history compression', async () => {
    const llm = compressors();
    // T_hist small: the first turns are folded before the big observation of turn 4 is compressed.
    const strategy = new AconStrategy('acon', settings({ tHist: 40, tObs: 100 }), deps(llm));
    for (let done = 0; done <= 4; done++) await strategy.view(prefix(full, done), done);
    const last = llm.callsOf('obs_compressor').at(-1)!.req.messages[1]!.content!;
    const session = /<session>\n([\s\S]*)\n<\/session>/.exec(last)![1]!;
    expect(session).toMatch(/^\[Context summary\]/);
    expect(session).toContain('H');
  });

  it('keeps the raw observation after malformed answers and does not ask again', async () => {
    const llm = new ScriptedLlm({ obs_compressor: () => 'I would drop the bio.' });
    const strategy = new AconStrategy('acon', settings(), deps(llm, 1));
    const first = await strategy.view(prefix(full, 2), 2);
    expect(first.events).toMatchObject([{ kind: 'obs', failed: true }]);
    expect(llm.calls).toHaveLength(2);
    expect(first.messages.at(-1)).toEqual(full.turns[1]!.observations[0]);
    const later = await strategy.view(prefix(full, 3), 3);
    expect(later.events).toEqual([]);
    expect(llm.calls).toHaveLength(2);
  });
});

describe('AconStrategy history compression', () => {
  // Each turn is 32 tokens with charTokens (see fifo.test.ts).
  const full = trajectoryOf(8);

  it('stays quiet while the history is at most T_hist', async () => {
    const llm = compressors();
    const view = await new AconStrategy('acon', settings({ tHist: 8 * 32 }), deps(llm)).view(
      full,
      8,
    );
    expect(view.events).toEqual([]);
    expect(llm.calls).toHaveLength(0);
  });

  it('folds all but the last k turns; system, task and the last k stay verbatim', async () => {
    const llm = compressors();
    const strategy = new AconStrategy('acon', settings({ tHist: 100, keepLast: 2 }), deps(llm));
    const view = await strategy.view(full, 8);
    expect(view.events).toMatchObject([{ kind: 'hist', guidelineId: 'hist-0002', output: 'H1' }]);
    expect(view.messages).toEqual([
      { role: 'system', content: 'SYSTEM' },
      { role: 'user', content: 'TASK' },
      summaryMessage('H1', 6),
      ...flattenTurns(full.turns.slice(6)),
    ]);
    const user = llm.calls[0]!.req.messages[1]!.content!;
    expect(user).toContain('<previous_summary>\n(none)\n</previous_summary>');
    expect(user).toContain('[Turn 6]');
    expect(user).not.toContain('[Turn 7]');
  });

  it('compresses again from the previous summary once the history regrows past T_hist', async () => {
    const llm = compressors();
    const strategy = new AconStrategy('acon', settings({ tHist: 100 }), deps(llm));
    const steps: string[] = [];
    for (let done = 0; done <= 8; done++) {
      const { events } = await strategy.view(prefix(full, done), done);
      steps.push(...events.map((e) => `${e.kind}@${done}`));
    }
    // 4 turns = 128 > 100 → fold 3; then summary (~80) + turns regrow past 100 after 1 more.
    expect(steps[0]).toBe('hist@4');
    const second = llm.calls[1]!.req.messages[1]!.content!;
    expect(second).toContain('<previous_summary>\nH1\n</previous_summary>');
    expect(second).not.toContain('[Turn 3]');
  });

  it('folds with observations as the agent saw them (compressed)', async () => {
    const big = trajectoryOf(3, (i) => `payload ${i} `.repeat(20));
    const llm = compressors();
    const strategy = new AconStrategy('acon', settings({ tHist: 60 }), deps(llm));
    await strategy.view(big, 3);
    const histUser = llm.callsOf('hist_compressor')[0]!.req.messages[1]!.content!;
    expect(histUser).toContain('Observation (lookup): short(payload )');
    expect(histUser).not.toContain('payload 1 payload 1');
  });

  it('keeps the history when the compressor fails and records the failure', async () => {
    const llm = new ScriptedLlm({ hist_compressor: () => 'summary without heading' });
    const strategy = new AconStrategy('acon', settings({ tHist: 100 }), deps(llm, 2));
    const view = await strategy.view(full, 8);
    expect(view.events).toMatchObject([{ kind: 'hist', failed: true }]);
    expect(llm.calls).toHaveLength(3);
    expect(view.messages.slice(2)).toEqual(flattenTurns(full.turns));
  });

  it('folds on demand for reactive compression, even below T_hist', async () => {
    const llm = compressors();
    const strategy = new AconStrategy('naive', settings(), deps(llm));
    const events = await strategy.compressNow(full, 8);
    expect(events).toMatchObject([{ kind: 'reactive', guidelineId: 'hist-0002', failed: false }]);
    const view = await strategy.view(full, 8);
    expect(view.messages.slice(2)).toEqual([
      summaryMessage('H1', 7),
      ...flattenTurns(full.turns.slice(7)),
    ]);
  });

  it('folds the only turn left when reactive compression finds nothing else', async () => {
    const llm = compressors();
    const strategy = new AconStrategy('acon', settings(), deps(llm));
    const one: Trajectory = { system: 'S', task: 'T', turns: [toolTurn(1, 'x')] };
    expect(await strategy.compressNow(one, 1)).toMatchObject([{ kind: 'reactive', failed: false }]);
    expect(await strategy.compressNow(one, 1)).toMatchObject([{ kind: 'reactive', failed: true }]);
  });
});

describe('createStrategy', () => {
  const base = { llm: new ScriptedLlm({}), callCtx: { runId: 'r' }, maxOutputRetries: 1 };

  it.each(['raw', 'fifo', 'masking', 'summary', 'naive', 'acon'] as const)('builds %s', (name) => {
    const strategy = createStrategy(name, { ...defaultContextOptions(), guidelines }, base);
    expect(strategy.name).toBe(name);
  });

  it('asks for guidelines for acon and naive', () => {
    expect(() => createStrategy('acon', defaultContextOptions(), base)).toThrow(InvalidInputError);
    expect(() => createStrategy('naive', defaultContextOptions(), base)).toThrow(/guidelines/);
  });

  it('uses the seed defaults', () => {
    expect(defaultContextOptions()).toEqual({
      t_obs: 1024,
      t_hist: 4096,
      keep_last: 1,
      obs_session_tokens: 65_536,
      masking: { window: 10 },
      summary: { n: 21, m: 10 },
      fifo: { turns: 5, budget: null },
      retrieval: { top_k: 5, recent: 3 },
    });
  });
});

import { describe, expect, it } from 'vitest';
import { charTokens, pairingViolation, toolTurn } from '../../../test/fakes/scripted-llm.js';
import type { Trajectory } from '../../domain/trajectory.js';
import { createStrategy } from './index.js';
import { defaultContextOptions } from './options.js';
import { RetrievalStrategy, rankTurns, turnText } from './retrieval.js';
import { ScriptedLlm } from '../../../test/fakes/scripted-llm.js';

const results = [
  'the weather in Lisbon is sunny',
  'playlist Road Trip has id 48213',
  'your wallet balance is 120 dollars',
  'an unrelated newsletter about gardening',
  'another unrelated note about cooking',
  'latest: now add songs to playlist',
];
const trajectory: Trajectory = {
  system: 'SYSTEM',
  task: 'Add three songs to the Road Trip playlist',
  turns: results.map((r, i) => toolTurn(i + 1, r)),
};

describe('RetrievalStrategy', () => {
  it('keeps the turns most relevant to the task and latest turn, plus the last turns, in order', async () => {
    const strategy = new RetrievalStrategy({ topK: 1, recent: 2 }, charTokens);
    const view = await strategy.view(trajectory, 6);
    const contents = view.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(contents).toEqual([results[1], results[4], results[5]]);
    expect(pairingViolation(view.messages)).toBeNull();
    expect(view.messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'SYSTEM' },
      { role: 'user', content: trajectory.task },
    ]);
    expect(view.events).toMatchObject([{ kind: 'retrieval', step: 6, failed: false }]);
  });

  it('records an event only when the set of left-out turns changes', async () => {
    const strategy = new RetrievalStrategy({ topK: 1, recent: 2 }, charTokens);
    await strategy.view(trajectory, 6);
    expect((await strategy.view(trajectory, 6)).events).toEqual([]);
  });

  it('shows everything while the history is short', async () => {
    const strategy = new RetrievalStrategy({ topK: 5, recent: 3 }, charTokens);
    const short = { ...trajectory, turns: trajectory.turns.slice(0, 4) };
    const view = await strategy.view(short, 4);
    expect(view.messages).toHaveLength(2 + 8);
    expect(view.events).toEqual([]);
  });

  it('is built from context.retrieval (top_k 5, recent 3 by default)', async () => {
    const options = defaultContextOptions();
    expect(options.retrieval).toEqual({ top_k: 5, recent: 3 });
    const strategy = createStrategy('retrieval', options, {
      llm: new ScriptedLlm({}),
      callCtx: { runId: 'r' },
      maxOutputRetries: 0,
      tokens: charTokens,
    });
    const long = { ...trajectory, turns: [...trajectory.turns, ...trajectory.turns] };
    const view = await strategy.view(long, 12);
    expect(view.messages.filter((m) => m.role === 'tool')).toHaveLength(8);
  });

  it('halves what it keeps on reactive compression', async () => {
    const strategy = new RetrievalStrategy({ topK: 2, recent: 2 }, charTokens);
    await strategy.view(trajectory, 6);
    const [event] = await strategy.compressNow(trajectory, 6);
    expect(event).toMatchObject({ kind: 'reactive', failed: false });
    const view = await strategy.view(trajectory, 6);
    expect(view.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it('shows at every step of a growing rollout the turns a fresh index of the older turns ranks', async () => {
    const words = ['playlist', 'wallet', 'Road', 'Trip', 'song', 'balance', 'note', 'id', '48213'];
    const growing: Trajectory = { system: 'SYSTEM', task: trajectory.task, turns: [] };
    const strategy = new RetrievalStrategy({ topK: 3, recent: 2 }, charTokens);
    for (let i = 0; i < 30; i++) {
      const text = Array.from({ length: 4 }, (_, j) => words[(i * 7 + j * 3) % words.length]);
      growing.turns.push(toolTurn(i + 1, text.join(' ')));
      const n = growing.turns.length;
      const older = Array.from({ length: Math.max(0, n - 2) }, (_, k) => k);
      const query = `${growing.task}\n${turnText(growing.turns[n - 1]!)}`;
      const expected = [
        ...rankTurns(growing.turns, older, query, 3).sort((a, b) => a - b),
        ...Array.from({ length: n - older.length }, (_, k) => older.length + k),
      ];
      expect(strategy.shownTurns(growing)).toEqual(expected);
      await strategy.view(growing, i);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { charTokens, trajectoryOf } from '../../../test/fakes/scripted-llm.js';
import { flattenTurns } from './messages.js';
import { createFifo } from './fifo.js';
import { createRaw } from './raw.js';
import { createStrategy } from './index.js';
import { defaultContextOptions } from './options.js';
import { ScriptedLlm } from '../../../test/fakes/scripted-llm.js';

// With charTokens: head = 'SYSTEM' + 'TASK' = 10; a turn = 'reasoning N' (11) + 'lookup' (6)
// + '{"n":N}' (7) + 'result N' (8) = 32 tokens for N < 10.
const HEAD = 10;
const TURN = 32;

describe('FifoStrategy', () => {
  it('keeps everything while the prompt fits the budget', async () => {
    const full = trajectoryOf(3);
    const view = await createFifo({ turns: 5, budget: HEAD + 3 * TURN }, charTokens).view(full, 3);
    expect(view.messages).toHaveLength(2 + 6);
    expect(view.events).toEqual([]);
  });

  it('drops the oldest whole turns until the prompt fits, keeping system and task', async () => {
    const full = trajectoryOf(5);
    const view = await createFifo({ turns: 5, budget: HEAD + 2 * TURN + 5 }, charTokens).view(
      full,
      5,
    );
    expect(view.messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'SYSTEM' },
      { role: 'user', content: 'TASK' },
    ]);
    expect(view.messages.slice(2)).toEqual(flattenTurns(full.turns.slice(3)));
    expect(view.events).toMatchObject([
      { kind: 'fifo', step: 5, inputTokens: 3 * TURN, outputTokens: 0 },
    ]);
    expect(charTokens.countMessageTokens(view.messages)).toBeLessThanOrEqual(HEAD + 2 * TURN + 5);
  });

  it('reports only newly dropped turns as the trajectory grows', async () => {
    const strategy = createFifo({ turns: 5, budget: HEAD + 2 * TURN }, charTokens);
    const full = trajectoryOf(4);
    const drops: number[] = [];
    for (let done = 0; done <= 4; done++) {
      const { events } = await strategy.view({ ...full, turns: full.turns.slice(0, done) }, done);
      drops.push(events.reduce((n, e) => n + e.inputTokens, 0));
    }
    expect(drops).toEqual([0, 0, 0, TURN, TURN]);
  });

  it('keeps the newest turn even when it alone is over budget', async () => {
    const full = trajectoryOf(2, (i) => 'x'.repeat(i * 100));
    const view = await createFifo({ turns: 5, budget: 50 }, charTokens).view(full, 2);
    expect(view.messages.slice(2)).toEqual(flattenTurns(full.turns.slice(1)));
  });

  it('shrinks the budget to 70% of the refused prompt on reactive compression', async () => {
    const strategy = createFifo({ turns: 5, budget: 10_000 }, charTokens);
    const full = trajectoryOf(9);
    await strategy.view(full, 9);
    const [event] = await strategy.compressNow(full, 9);
    expect(event).toMatchObject({ kind: 'reactive', failed: false });
    const view = await strategy.view(full, 9);
    expect(charTokens.countMessageTokens(view.messages)).toBeLessThanOrEqual(
      Math.floor((HEAD + 9 * TURN) * 0.7),
    );
  });
});

describe('FIFO by turns (the default, ACON paper v3)', () => {
  it('keeps system, task and the last 5 turns by default', async () => {
    const strategy = createStrategy('fifo', defaultContextOptions(), {
      llm: new ScriptedLlm({}),
      callCtx: { runId: 'r' },
      maxOutputRetries: 0,
      tokens: charTokens,
    });
    const full = trajectoryOf(8);
    const view = await strategy.view(full, 8);
    expect(view.messages.slice(2)).toEqual(flattenTurns(full.turns.slice(3)));
    expect(view.events).toMatchObject([{ kind: 'fifo', step: 8, inputTokens: 3 * TURN }]);
  });

  it('keeps everything up to the turn limit, however long the turns are', async () => {
    const full = trajectoryOf(4, (i) => 'x'.repeat(i * 1000));
    const view = await createFifo({ turns: 5, budget: null }, charTokens).view(full, 4);
    expect(view.messages.slice(2)).toEqual(flattenTurns(full.turns));
    expect(view.events).toEqual([]);
  });
});

describe('raw', () => {
  it('sends system, task and every turn in order, assistant then observation', async () => {
    const full = trajectoryOf(60);
    const view = await createRaw(charTokens).view(full, 60);
    expect(view.messages).toEqual([
      { role: 'system', content: 'SYSTEM' },
      { role: 'user', content: 'TASK' },
      ...full.turns.flatMap((t) => [t.assistant, ...t.observations]),
    ]);
    expect(view.events).toEqual([]);
  });

  it('drops the oldest turns only after a context-length error', async () => {
    const strategy = createRaw(charTokens);
    const full = trajectoryOf(6);
    const events = await strategy.compressNow(full, 6);
    expect(events).toMatchObject([{ kind: 'reactive', failed: false }]);
    const view = await strategy.view(full, 6);
    expect(view.messages.length).toBeLessThan(2 + 12);
    expect(view.messages.at(-1)).toEqual(full.turns[5]!.observations[0]);
  });

  it('records a failed reactive event when only the newest turn is left', async () => {
    const [event] = await createRaw(charTokens).compressNow(trajectoryOf(1), 1);
    expect(event).toMatchObject({ kind: 'reactive', failed: true });
  });
});

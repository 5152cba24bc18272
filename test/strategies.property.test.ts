import { describe, expect, it } from 'vitest';
import { pairObservations } from '../src/agent/observations.js';
import { createStrategy, defaultContextOptions } from '../src/agent/context/index.js';
import { StrategyNameSchema } from '../src/agent/context/strategy.js';
import type { Trajectory, Turn } from '../src/domain/trajectory.js';
import type { AssistantMessage, ChatMessage, ToolCall } from '../src/llm/types.js';
import { mulberry32 } from '../src/seeded-random.js';
import {
  charTokens,
  historySummary,
  pairingViolation,
  refined,
  ScriptedLlm,
} from './fakes/scripted-llm.js';

/** acon's seeded PRNG, so every failure reproduces from its seed. */
function prng(seed: number) {
  const next = mulberry32(seed);
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof prng>;

function text(rng: Rng): string {
  const lines = rng.int(1, 12);
  return Array.from({ length: lines }, (_, i) => `line ${i} ${'x'.repeat(rng.int(0, 60))}`).join(
    '\n',
  );
}

function randomTurn(rng: Rng, index: number): Turn {
  const calls: ToolCall[] = Array.from({ length: rng.int(0, 3) }, (_, j) => ({
    id: `c${index}_${j}`,
    type: 'function',
    function: { name: `tool_${j}`, arguments: JSON.stringify({ i: index }) },
  }));
  const assistant: AssistantMessage =
    calls.length === 0
      ? { role: 'assistant', content: `thinking ${index}` }
      : {
          role: 'assistant',
          content: rng.chance(0.3) ? null : `thinking ${index}`,
          tool_calls: calls,
        };
  const results: ChatMessage[] = calls.map((c) => ({
    role: 'tool',
    tool_call_id: c.id,
    content: text(rng),
  }));
  if (rng.chance(0.5)) results.reverse();
  if (calls.length === 0 || rng.chance(0.1)) results.push({ role: 'user', content: text(rng) });
  return { assistant, observations: results };
}

function randomLlm(rng: Rng) {
  return new ScriptedLlm({
    obs_compressor: () => (rng.chance(0.2) ? 'malformed' : refined(`obs ${rng.int(0, 99)}`)),
    hist_compressor: () => (rng.chance(0.2) ? '' : historySummary(`sum ${rng.int(0, 99)}`)),
  });
}

const guidelines = { obs: { id: 'obs-0000', text: 'g' }, hist: { id: 'hist-0000', text: 'g' } };

describe('every strategy view', () => {
  it('never holds a tool result without its call, nor a call without its result', async () => {
    const iterations = 150;
    for (let seed = 1; seed <= iterations; seed++) {
      const rng = prng(seed);
      const turns = Array.from({ length: rng.int(0, 45) }, (_, i) => randomTurn(rng, i));
      const full: Trajectory = { system: 'SYS', task: 'TASK', turns };
      for (const name of StrategyNameSchema.options) {
        const options = {
          ...defaultContextOptions(),
          t_obs: rng.int(20, 400),
          t_hist: rng.int(100, 2000),
          keep_last: rng.int(0, 3),
          masking: { window: rng.int(0, 6) },
          summary: { n: rng.int(1, 5), m: rng.int(0, 4) },
          fifo: { turns: rng.int(1, 6), budget: rng.chance(0.5) ? rng.int(256, 1500) : null },
          guidelines,
        };
        const strategy = createStrategy(name, options, {
          llm: randomLlm(rng),
          callCtx: { runId: 'prop' },
          maxOutputRetries: rng.int(0, 2),
          tokens: charTokens,
        });
        for (let done = 0; done <= turns.length; done++) {
          const now = { ...full, turns: turns.slice(0, done) };
          if (rng.chance(0.1)) await strategy.compressNow(now, done);
          const { messages } = await strategy.view(now, done);
          const where = `seed ${seed}, ${name}, step ${done}`;
          expect(pairingViolation(messages), where).toBeNull();
          expect(messages[0], where).toEqual({ role: 'system', content: 'SYS' });
          expect(messages[1], where).toEqual({ role: 'user', content: 'TASK' });
        }
      }
    }
  });
});

describe('pairingViolation (the checker itself)', () => {
  const a: AssistantMessage = {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
  };
  const result: ChatMessage = { role: 'tool', tool_call_id: 'c1', content: 'r' };

  it.each([
    ['a result without its call', [result]],
    ['a call without its result', [a, { role: 'user', content: 'x' }]],
    ['a call at the end without its result', [a]],
    ['a result after another message', [a, { role: 'user', content: 'x' }, result]],
    ['a result given twice', [a, result, result]],
  ])('flags %s', (_name, messages) => {
    expect(pairingViolation(messages as ChatMessage[])).not.toBeNull();
  });

  it('accepts a call followed by its result', () => {
    expect(pairingViolation([a, result])).toBeNull();
  });
});

describe('pairObservations', () => {
  it('makes any environment answer a valid turn', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const rng = prng(seed);
      const turn = randomTurn(rng, seed);
      const ids = (turn.assistant.tool_calls ?? []).map((c) => c.id);
      // Drop some results, duplicate some, add strays answering no call.
      const messy: ChatMessage[] = turn.observations.filter(() => rng.chance(0.7));
      if (rng.chance(0.3) && messy[0]) messy.push(messy[0]);
      if (rng.chance(0.3)) messy.push({ role: 'tool', tool_call_id: 'stray', content: 'x' });
      const observations = pairObservations(turn.assistant, messy);
      const where = `seed ${seed}`;
      expect(pairingViolation([turn.assistant, ...observations]), where).toBeNull();
      expect(
        observations.slice(0, ids.length).map((m) => (m.role === 'tool' ? m.tool_call_id : '')),
        where,
      ).toEqual(ids);
    }
  });
});

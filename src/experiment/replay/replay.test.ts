import { describe, expect, it } from 'vitest';
import { defaultTokenCounter, MaskingStrategy } from '../../agent/index.js';
import type { AssistantMessage, ChatMessage } from '../../domain/message.js';
import type { Trace } from '../../domain/trace.js';
import type { ChatRequest, ChatResult, LlmClient } from '../../llm/types.js';
import { replayTrace, traceTrajectory } from './replay.js';

const call = (id: string, name: string, args: string): AssistantMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
});

const messages: ChatMessage[] = [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: 'Refund the last order.' },
  call('c1', 'list_orders', '{}'),
  { role: 'tool', tool_call_id: 'c1', content: '{"orders": [{"id": "ord_5521", "amount": 42.5}]}' },
  call('c2', 'show_order', '{"id": "ord_5521"}'),
  { role: 'tool', tool_call_id: 'c2', content: '{"payment": "pay_77aa"}' },
  call('c3', 'refund', '{"payment": "pay_77aa", "amount": 42.5}'),
  { role: 'tool', tool_call_id: 'c3', content: '{"ok": true}' },
  { role: 'assistant', content: 'Refunded 42.5.' },
];
const trace: Trace = { id: 't', messages, tools: [], outcome: 'success', source: 'test' };

/** An agent that repeats what it was recorded doing when it can see the amount, else guesses. */
function agent(): LlmClient & { calls: ChatRequest[] } {
  const calls: ChatRequest[] = [];
  return {
    calls,
    async chat(req) {
      calls.push(req);
      const seen = req.messages.map((m) => JSON.stringify(m)).join('');
      const step = req.messages.filter((m) => m.role === 'assistant').length;
      const recorded = traceTrajectory(trace).turns[step]!.assistant;
      const message = seen.includes('42.5')
        ? recorded
        : { role: 'assistant' as const, content: 'I cannot tell.' };
      return {
        message,
        usage: { promptTokens: 1, cachedPromptTokens: 0, completionTokens: 1 },
      } as ChatResult;
    },
  };
}

describe('replayTrace', () => {
  it('turns a conversation into head and turns, one a recorded assistant message', () => {
    const t = traceTrajectory(trace);
    expect(t.system).toBe('You are an agent.');
    expect(t.task).toBe('Refund the last order.');
    expect(t.turns.map((x) => x.observations.length)).toEqual([1, 1, 1, 0]);
  });

  it('asks the agent only where the view differs from full context, and compares its action', async () => {
    const llm = agent();
    const out = await replayTrace({
      trace,
      strategy: new MaskingStrategy(1, defaultTokenCounter),
      llm,
      tokens: defaultTokenCounter,
      callCtx: { runId: 'r' },
    });
    expect(out.steps.map((s) => s.compressed)).toEqual([false, false, true, true]);
    expect(llm.calls).toHaveLength(2);
    // Step 2 needs the amount (masked with the first observation) and the payment (still shown).
    expect(out.steps[2]!.agrees).toBe(false);
    expect(out.steps[2]!.lost.map((p) => p.value)).toEqual(['42.5']);
    expect(out.steps[2]!.kept.map((p) => p.value)).toEqual(['pay_77aa']);
    // The final answer's amount is still in view: the agent's own refund call carries it.
    expect(out.steps[3]!.agrees).toBe(true);
    expect(out.steps[3]!.lost).toEqual([]);
    expect(out.steps.every((s) => s.viewTokens <= s.fullTokens)).toBe(true);
    expect(out.events.some((e) => e.kind === 'mask')).toBe(true);
  });

  it('agrees everywhere when the window keeps everything', async () => {
    const llm = agent();
    const out = await replayTrace({
      trace,
      strategy: new MaskingStrategy(10, defaultTokenCounter),
      llm,
      tokens: defaultTokenCounter,
      callCtx: { runId: 'r' },
    });
    expect(out.steps.every((s) => s.agrees && !s.compressed)).toBe(true);
    expect(llm.calls).toHaveLength(0);
  });
});

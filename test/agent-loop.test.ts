import { describe, expect, it } from 'vitest';
import {
  createStrategy,
  defaultContextOptions,
  type StrategyName,
} from '../src/agent/context/index.js';
import { runEpisode } from '../src/agent/loop.js';
import { StepRecordSchema } from '../src/domain/step.js';
import type { ActResult } from '../src/agent/environment.js';
import type { Episode } from '../src/bench/types.js';
import type { Evaluation } from '../src/domain/evaluation.js';
import { ContextLengthError, InterruptedError, ProviderError } from '../src/errors.js';
import type { AssistantMessage, CallContext, ChatRequest, ToolDef } from '../src/llm/types.js';
import { charTokens, cut, historySummary, ScriptedLlm } from './fakes/scripted-llm.js';

const tool = (name: string): ToolDef => ({
  type: 'function',
  function: { name, description: name, parameters: { type: 'object', properties: {} } },
});

/** A world with `lookup` (answers "value <n>") and `complete_task` (ends the episode). */
class FakeEpisode implements Episode {
  readonly task = {
    id: 'fake-1',
    split: 'dev',
    instruction: 'Find the value and finish.',
    apps: [],
    difficulty: 1,
    referenceLength: 2,
  };
  readonly systemPrompt = 'You are a test agent.';
  readonly firstUserMessage = 'Find the value and finish.';
  readonly acted: AssistantMessage[] = [];
  completed = false;
  evaluations = 0;

  constructor(readonly tools: ToolDef[] = [tool('lookup'), tool('complete_task')]) {}

  async act(message: AssistantMessage): Promise<ActResult> {
    this.acted.push(message);
    if (this.tools.length === 0) {
      return { messages: [{ role: 'user', content: `ran: ${message.content}` }], done: false };
    }
    const messages = (message.tool_calls ?? []).map((c) => ({
      role: 'tool' as const,
      tool_call_id: c.id,
      content: c.function.name === 'complete_task' ? 'done' : `value ${this.acted.length}`,
    }));
    this.completed ||= (message.tool_calls ?? []).some((c) => c.function.name === 'complete_task');
    return { messages, done: this.completed };
  }

  async evaluate(): Promise<Evaluation> {
    this.evaluations++;
    return {
      success: this.completed,
      score: this.completed ? 1 : 0,
      details: [{ name: 'completed', passed: this.completed, detail: '' }],
    };
  }

  async close(): Promise<void> {}
}

let nextId = 0;
function call(name: string, content = `I call ${name}`): AssistantMessage {
  nextId++;
  return {
    role: 'assistant',
    content,
    tool_calls: [{ id: `call_${nextId}`, type: 'function', function: { name, arguments: '{}' } }],
  };
}

function base(llm: ScriptedLlm, strategy: StrategyName = 'raw') {
  return {
    llm,
    callCtx: { runId: 'run-1', rolloutId: 'ro-1', taskId: 'fake-1' },
    tokens: charTokens,
    strategy: createStrategy(
      strategy,
      { ...defaultContextOptions() },
      { llm, callCtx: { runId: 'run-1' }, maxOutputRetries: 1, tokens: charTokens },
    ),
  };
}

describe('runEpisode', () => {
  it('runs until the episode is done and records every step', async () => {
    const llm = new ScriptedLlm({ agent: [call('lookup'), call('lookup'), call('complete_task')] });
    const episode = new FakeEpisode();
    const result = await runEpisode({ ...base(llm), episode });

    expect(result.stopReason).toBe('completed');
    expect(result.evaluation.success).toBe(true);
    expect(result.trajectory.turns).toHaveLength(3);
    expect(result.steps.map((s) => s.index)).toEqual([0, 1, 2]);
    for (const step of result.steps) expect(StepRecordSchema.parse(step)).toEqual(step);

    const [, second] = result.steps;
    expect(second!.prompt).toEqual(llm.calls[1]!.req.messages);
    expect(second!.prompt).toEqual([
      { role: 'system', content: 'You are a test agent.' },
      { role: 'user', content: 'Find the value and finish.' },
      result.trajectory.turns[0]!.assistant,
      {
        role: 'tool',
        tool_call_id: result.trajectory.turns[0]!.assistant.tool_calls![0]!.id,
        content: 'value 1',
      },
    ]);
    expect(second!.promptTokens).toBe(charTokens.countMessageTokens(second!.prompt, episode.tools));
    expect(second!.toolCall?.function.name).toBe('lookup');
    expect(second!.observations).toEqual(result.trajectory.turns[1]!.observations);
    expect(second!.observationTokens).toBe('value 2'.length);
    expect(second!.callId).toBe(2);
    expect(llm.calls[1]!.req.tools).toEqual(episode.tools);
    expect(llm.calls.map((c) => c.ctx)).toEqual(
      [0, 1, 2].map((step) => ({
        runId: 'run-1',
        rolloutId: 'ro-1',
        taskId: 'fake-1',
        role: 'agent',
        step,
      })),
    );
  });

  it('stops at maxSteps and still evaluates', async () => {
    const llm = new ScriptedLlm({ agent: () => call('lookup') });
    const episode = new FakeEpisode();
    const result = await runEpisode({ ...base(llm), episode, maxSteps: 4 });
    expect(result.stopReason).toBe('max_steps');
    expect(result.steps).toHaveLength(4);
    expect(episode.evaluations).toBe(1);
    expect(result.evaluation.success).toBe(false);
  });

  it('compresses reactively after a context-length error and retries the step once', async () => {
    let failed = false;
    // Step 2's prompt (system, task, 2 turns = 6 messages) is refused once.
    const agent = (req: ChatRequest, ctx: CallContext) => {
      if (req.messages.length > 5 && !failed) {
        failed = true;
        return new ContextLengthError('maximum context length exceeded', 400);
      }
      return ctx.step === 3 ? call('complete_task') : call('lookup');
    };
    const llm = new ScriptedLlm({ agent, hist_compressor: [historySummary('looked up 1 and 2')] });
    const result = await runEpisode({ ...base(llm, 'summary'), episode: new FakeEpisode() });

    expect(result.stopReason).toBe('completed');
    expect(result.events).toMatchObject([{ kind: 'reactive', step: 2, failed: false }]);
    const step2 = result.steps[2]!;
    expect(step2.reactive).toBe(true);
    expect(step2.prompt[2]?.content).toContain('looked up 1 and 2');
    expect(step2.prompt).toHaveLength(5);
    expect(llm.callsOf('agent').filter((c) => c.ctx.step === 2)).toHaveLength(2);
    expect(result.steps.filter((s) => s.reactive)).toHaveLength(1);
  });

  it('stops with an error when the retried step is still too long', async () => {
    const llm = new ScriptedLlm({
      agent: (req) =>
        req.messages.length > 2 ? new ContextLengthError('too long', 400) : call('lookup'),
    });
    const episode = new FakeEpisode();
    const result = await runEpisode({ ...base(llm, 'raw'), episode });
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatch(/step 1: the prompt is still too long/);
    expect(result.steps).toHaveLength(1);
    // raw can only drop turns older than the newest one: nothing to drop here.
    expect(result.events).toMatchObject([{ kind: 'reactive', step: 1, failed: true }]);
    expect(episode.evaluations).toBe(1);
  });

  it('stops with an error when the reactive compressor itself overflows', async () => {
    const llm = new ScriptedLlm({
      agent: (req) =>
        req.messages.length > 4 ? new ContextLengthError('too long', 400) : call('lookup'),
      hist_compressor: () => new ContextLengthError('compressor prompt too long', 400),
    });
    const result = await runEpisode({ ...base(llm, 'summary'), episode: new FakeEpisode() });
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatch(/compressor prompt too long/);
  });

  it('answers a reply without a tool call with a corrective observation, within a budget', async () => {
    const text: AssistantMessage = { role: 'assistant', content: 'I think I am done.' };
    const llm = new ScriptedLlm({ agent: [text, call('lookup'), text, text, text] });
    const episode = new FakeEpisode();
    const result = await runEpisode({ ...base(llm), episode, maxOutputRetries: 2 });

    expect(result.steps.map((s) => s.malformed)).toEqual([true, false, true, true, true]);
    expect(result.steps[0]!.observations).toMatchObject([
      { role: 'user', content: expect.stringContaining('did not call a tool') },
    ]);
    expect(episode.acted).toHaveLength(1);
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatch(/without a tool call 3 times in a row/);
    expect(result.steps[4]!.observations).toEqual([]);
  });

  it('never runs an answer cut at the token limit, even with a tool call, and asks again', async () => {
    // Issue #54: a cut answer's arguments may be half of what the model meant.
    const llm = new ScriptedLlm({
      agent: [cut(call('lookup')), call('lookup'), call('complete_task')],
    });
    const episode = new FakeEpisode();
    const result = await runEpisode({ ...base(llm), episode, maxOutputRetries: 2 });

    expect(result.stopReason).toBe('completed');
    expect(result.steps.map((s) => s.malformed)).toEqual([true, false, false]);
    expect(episode.acted.map((m) => m.tool_calls?.[0]?.function.name)).toEqual([
      'lookup',
      'complete_task',
    ]);
    expect(result.steps[0]!.observations).toEqual([
      {
        role: 'user',
        content: expect.stringContaining('cut off at the token limit (finish_reason: length)'),
      },
    ]);
    // The cut turn's tool call stays out of the history: a call without its result is invalid.
    expect(result.trajectory.turns[0]!.assistant.tool_calls).toBeUndefined();
    expect(llm.calls[1]!.req.messages.some((m) => m.role === 'tool')).toBe(false);
  });

  it('fails the step once the answers are cut more times in a row than the retries allow', async () => {
    const llm = new ScriptedLlm({ agent: () => cut(call('lookup'), 'content_filter') });
    const episode = new FakeEpisode();
    const result = await runEpisode({ ...base(llm), episode, maxOutputRetries: 1 });

    expect(episode.acted).toEqual([]);
    expect(result.steps.map((s) => s.malformed)).toEqual([true, true]);
    expect(result.stopReason).toBe('error');
    expect(result.error).toBe(
      "step 1: the answer was stopped by the provider's content filter (finish_reason: content_filter), 2 times in a row",
    );
    expect(result.steps[1]!.observations).toEqual([]);
    expect(episode.evaluations).toBe(1);
  });

  it('passes a code agent message to the episode when the benchmark has no tools', async () => {
    const llm = new ScriptedLlm({ agent: [{ role: 'assistant', content: 'print(1)' }] });
    const episode = new FakeEpisode([]);
    const result = await runEpisode({ ...base(llm), episode, maxSteps: 1 });
    expect(result.steps[0]!.malformed).toBe(false);
    expect(result.steps[0]!.observations).toEqual([{ role: 'user', content: 'ran: print(1)' }]);
    expect(llm.calls[0]!.req.tools).toBeUndefined();
  });

  it('lets provider errors propagate', async () => {
    const llm = new ScriptedLlm({ agent: [new ProviderError('HTTP 503 after 5 retries', 503)] });
    await expect(runEpisode({ ...base(llm), episode: new FakeEpisode() })).rejects.toBeInstanceOf(
      ProviderError,
    );
  });

  it('stops with InterruptedError when the signal is aborted', async () => {
    const controller = new AbortController();
    const llm = new ScriptedLlm({ agent: () => call('lookup') });
    const run = runEpisode({
      ...base(llm),
      episode: new FakeEpisode(),
      signal: controller.signal,
      onStep: (step) => {
        if (step.index === 1) controller.abort();
      },
    });
    await expect(run).rejects.toBeInstanceOf(InterruptedError);
    expect(llm.calls).toHaveLength(2);
  });

  it('reports each step with the compression events that shaped its prompt', async () => {
    const llm = new ScriptedLlm({ agent: () => call('lookup') });
    const seen: [number, string[]][] = [];
    const masking = createStrategy(
      'masking',
      { ...defaultContextOptions(), masking: { window: 1 } },
      { llm, callCtx: { runId: 'r' }, maxOutputRetries: 0, tokens: charTokens },
    );
    const result = await runEpisode({
      ...base(llm),
      strategy: masking,
      episode: new FakeEpisode(),
      maxSteps: 4,
      onStep: (step, events) => {
        seen.push([step.index, events.map((e) => e.kind)]);
      },
    });
    expect(seen).toEqual([
      [0, []],
      [1, []],
      [2, ['mask']],
      [3, ['mask']],
    ]);
    expect(result.events.map((e) => e.step)).toEqual([2, 3]);
  });
});

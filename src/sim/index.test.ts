import { describe, expect, it } from 'vitest';
import type { ReferencePlan } from '../bench/types.js';
import { extractSection, REFINED_OBSERVATION } from '../compress/parse.js';
import { ProviderError } from '../errors.js';
import {
  GUIDELINE_UPDATE_FORMAT,
  parseJsonAnswer,
  UTILITY_ANALYSIS_FORMAT,
} from '../optimize/analysis.js';
import { GuidelineUpdateSchema } from '../domain/guideline-update.js';
import { UtilityAnalysisSchema } from '../domain/utility-analysis.js';
import { renderPrompt } from '../prompts/template.js';
import { countMessageTokens, countTokens } from '../llm/tokenizer.js';
import { AssistantMessageSchema, type LlmRole, type ProviderRequest } from '../llm/types.js';
import { createSimProvider } from './index.js';
import { PAIR_VARS } from './sim.fixtures.js';

const PLAN: ReferencePlan = {
  steps: [
    { tool: 'call_api', args: { app: 'auth', api: 'login', args: {} }, needs: [] },
    { tool: 'complete_task', args: { answer: 'ok', status: 'success' }, needs: [] },
  ],
};

const sim = createSimProvider({ seed: 7, refetchLimit: 2, planFor: async () => PLAN });

function req(role: LlmRole, system: string, user: string, extra: Partial<ProviderRequest> = {}) {
  return {
    model: 'sim',
    messages: [
      { role: 'system' as const, content: system },
      { role: 'user' as const, content: user },
    ],
    ctx: { role, runId: 'r1', rolloutId: 'ro1', taskId: 't1', step: 0 },
    ...extra,
  } satisfies ProviderRequest;
}

describe('SimProvider', () => {
  it('is named sim and says it is simulated', () => {
    expect(sim.name).toBe('sim');
    expect(sim.simulated).toBe(true);
  });

  it('answers the agent with a valid assistant message and a tool call', async () => {
    const r = await sim.chat(req('agent', 'You are an agent.', 'Log in.'));
    expect(AssistantMessageSchema.parse(r.message)).toEqual(r.message);
    expect(r.message.tool_calls?.[0]?.function.name).toBe('call_api');
  });

  it('reports usage: the prompt and the answer in tokens, nothing cached', async () => {
    const q = req('agent', 'You are an agent.', 'Log in.');
    const r = await sim.chat(q);
    const call = r.message.tool_calls![0]!;
    expect(r.usage).toEqual({
      promptTokens: countMessageTokens(q.messages),
      cachedPromptTokens: 0,
      completionTokens:
        countTokens(r.message.content ?? '') +
        countTokens(call.function.name) +
        countTokens(call.function.arguments),
    });
  });

  it('answers a compressor under its heading', async () => {
    const r = await sim.chat(
      req(
        'obs_compressor',
        renderPrompt('obs-compressor.system.txt', { guideline: 'KEEP: id\nDROP: url' }),
        renderPrompt('obs-compressor.user.txt', {
          task: 't',
          session: '(none)',
          observation: '{"id":48213,"url":"https://x.example"}',
        }),
      ),
    );
    expect(extractSection(r.message.content, REFINED_OBSERVATION)).toEqual({
      ok: true,
      text: '{"id":48213}',
    });
  });

  it('answers the analyzer and the updater with JSON matching their schemas', async () => {
    const analysis = await sim.chat(
      req(
        'analyzer',
        'sys',
        renderPrompt('analyzer-ut.user.txt', {
          task: 't',
          kind: 'obs',
          guideline: 'g',
          ...PAIR_VARS,
          full_trajectory: '',
          compressed_trajectory: '',
        }),
        { responseFormat: UTILITY_ANALYSIS_FORMAT },
      ),
    );
    expect(parseJsonAnswer(analysis.message.content, UtilityAnalysisSchema).ok).toBe(true);
    const update = await sim.chat(
      req(
        'updater',
        'sys',
        renderPrompt('updater-ut.user.txt', {
          kind: 'obs',
          guideline: 'Be brief.',
          analyses: '[]',
          candidate: '0',
        }),
        { responseFormat: GUIDELINE_UPDATE_FORMAT },
      ),
    );
    expect(parseJsonAnswer(update.message.content, GuidelineUpdateSchema)).toMatchObject({
      ok: true,
      value: { guideline: 'Be brief.' },
    });
  });

  it('gives identical answers to identical requests', async () => {
    const q = req('agent', 'You are an agent.', 'Log in.');
    expect(await sim.chat(q)).toEqual(await sim.chat(q));
  });

  it('fails clearly without a task id or with bad options', async () => {
    const q = req('agent', 's', 'u');
    await expect(sim.chat({ ...q, ctx: { role: 'agent', runId: 'r' } })).rejects.toThrow(
      /ctx.taskId/,
    );
    expect(() =>
      createSimProvider({ seed: 1, refetchLimit: -1, planFor: async () => PLAN }),
    ).toThrow(ProviderError);
    const empty = createSimProvider({
      seed: 1,
      refetchLimit: 1,
      planFor: async () => ({ steps: [] }),
    });
    await expect(empty.chat(q)).rejects.toThrow(/empty reference plan/);
  });

  it('looks a plan up again after a failed look-up', async () => {
    let calls = 0;
    const flaky = createSimProvider({
      seed: 1,
      refetchLimit: 1,
      planFor: async () => {
        calls++;
        if (calls === 1) throw new Error('not loaded yet');
        return PLAN;
      },
    });
    const q = req('agent', 's', 'u');
    await expect(flaky.chat(q)).rejects.toThrow('not loaded yet');
    await expect(flaky.chat(q)).resolves.toBeDefined();
    await flaky.chat(q);
    expect(calls).toBe(2);
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(sim.chat(req('agent', 's', 'u'), controller.signal)).rejects.toThrow();
  });
});

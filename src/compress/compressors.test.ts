import { describe, expect, it } from 'vitest';
import { ProviderError } from '../errors.js';
import { charTokens, historySummary, refined, ScriptedLlm } from '../../test/fakes/scripted-llm.js';
import { compressHistory } from './history-compressor.js';
import { compressObservation } from './observation-compressor.js';
import type { CompressorDeps } from './run-compressor.js';
import { compressSummary } from './history-compressor.js';

const guideline = { id: 'obs-0007', text: 'KEEP: id' };

function deps(llm: ScriptedLlm, maxOutputRetries = 2): CompressorDeps {
  return { llm, callCtx: { runId: 'r1', taskId: 't1' }, maxOutputRetries, tokens: charTokens };
}

const obsInput = {
  task: 'Pay Bob',
  session: '[Turn 1]\nAssistant: look up Bob',
  observation: '{"id": 42, "name": "Bob", "bio": "long"}',
  guideline,
  step: 3,
};

describe('compressObservation', () => {
  it('sends guideline, task, recent history and observation inside the contract markers', async () => {
    const llm = new ScriptedLlm({ obs_compressor: [refined('{"id": 42}')] });
    const out = await compressObservation(obsInput, deps(llm));
    const [call] = llm.calls;
    expect(call?.ctx).toEqual({ runId: 'r1', taskId: 't1', role: 'obs_compressor', step: 3 });
    const [system, user] = call!.req.messages;
    expect(system?.content).toContain('<guideline>\nKEEP: id\n</guideline>');
    expect(system?.content).toContain('# Refined Observation');
    expect(user?.content).toContain('<task>\nPay Bob\n</task>');
    expect(user?.content).toContain('<session>\n[Turn 1]\nAssistant: look up Bob\n</session>');
    expect(user?.content).toContain(`<observation>\n${obsInput.observation}\n</observation>`);
    expect(out).toMatchObject({ ok: true, text: '{"id": 42}' });
    expect(out.event).toEqual({
      kind: 'obs',
      step: 3,
      inputTokens: obsInput.observation.length,
      outputTokens: '{"id": 42}'.length,
      input: obsInput.observation,
      output: '{"id": 42}',
      guidelineId: 'obs-0007',
      callId: 1,
      failed: false,
    });
  });

  it('retries a malformed answer with the reason, then accepts a good one', async () => {
    const llm = new ScriptedLlm({
      obs_compressor: ['here you go: {"id": 42}', refined('{"id": 42}')],
    });
    const out = await compressObservation(obsInput, deps(llm));
    expect(out.ok).toBe(true);
    expect(out.event.callId).toBe(2);
    const retry = llm.calls[1]!.req.messages;
    expect(retry).toHaveLength(4);
    expect(retry[2]).toEqual({ role: 'assistant', content: 'here you go: {"id": 42}' });
    expect(retry[3]?.content).toContain('no "# Refined Observation" heading');
  });

  it('records a failed event and keeps the observation after the retry budget', async () => {
    const llm = new ScriptedLlm({ obs_compressor: () => '# Refined Observation\n' });
    const out = await compressObservation(obsInput, deps(llm, 2));
    expect(llm.calls).toHaveLength(3);
    expect(out.ok).toBe(false);
    expect(out.text).toBe(obsInput.observation);
    expect(out.event).toMatchObject({
      failed: true,
      callId: 3,
      output: obsInput.observation,
      outputTokens: out.event.inputTokens,
    });
  });

  it('lets provider errors through', async () => {
    const llm = new ScriptedLlm({ obs_compressor: [new ProviderError('HTTP 500', 500)] });
    await expect(compressObservation(obsInput, deps(llm))).rejects.toBeInstanceOf(ProviderError);
  });
});

describe('compressHistory', () => {
  it('says (none) without a previous summary and returns the summary body', async () => {
    const llm = new ScriptedLlm({ hist_compressor: [historySummary('Bob id 42.')] });
    const out = await compressHistory(
      { task: 'Pay Bob', previousSummary: null, history: '[Turn 1]', guideline, step: 5 },
      deps(llm),
    );
    const user = llm.calls[0]!.req.messages[1]!.content!;
    expect(user).toContain('<previous_summary>\n(none)\n</previous_summary>');
    expect(user).toContain('<history>\n[Turn 1]\n</history>');
    expect(llm.calls[0]!.ctx.role).toBe('hist_compressor');
    expect(out.event).toMatchObject({
      kind: 'hist',
      output: 'Bob id 42.',
      guidelineId: 'obs-0007',
    });
  });

  it('passes the previous summary and counts it as replaced input', async () => {
    const llm = new ScriptedLlm({ hist_compressor: [historySummary('new')] });
    const out = await compressHistory(
      { task: 'T', previousSummary: 'old', history: 'H', guideline, step: 1 },
      deps(llm),
    );
    expect(llm.calls[0]!.req.messages[1]!.content).toContain(
      '<previous_summary>\nold\n</previous_summary>',
    );
    expect(out.event.input).toBe('Previous summary:\nold\n\nH');
  });
});

describe('compressSummary', () => {
  it('uses the structured summary prompt under the hist_compressor role, without a guideline', async () => {
    const llm = new ScriptedLlm({ hist_compressor: [historySummary('USER_CONTEXT: pay')] });
    const out = await compressSummary(
      { task: 'T', previousSummary: null, history: 'H', step: 31 },
      deps(llm),
    );
    expect(llm.calls[0]!.req.messages[0]!.content).toContain('CURRENT_STATE');
    expect(out.event).toMatchObject({
      kind: 'summary',
      guidelineId: null,
      output: 'USER_CONTEXT: pay',
    });
  });
});

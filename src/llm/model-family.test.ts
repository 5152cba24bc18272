import { describe, expect, it } from 'vitest';
import { modelFamily, samplingFor } from './model-family.js';
import { toWireRequest } from './wire-request.js';

describe('model families', () => {
  it('names o1, o3, o4 and gpt-5 models reasoning models, others chat models', () => {
    for (const m of [
      'o1',
      'o1-mini',
      'o3',
      'o3-2025-04-16',
      'o4-mini',
      'gpt-5',
      'gpt-5-mini',
      'gpt-5.1',
      'openai/o3',
    ])
      expect(modelFamily(m), m).toBe('reasoning');
    for (const m of ['gpt-4.1', 'gpt-4.1-mini', 'gpt-4o', 'Qwen/Qwen3-8B', 'o1x', 'llama-o3'])
      expect(modelFamily(m), m).toBe('chat');
    expect(modelFamily('gpt-4.1', true)).toBe('reasoning');
    expect(modelFamily('o3', false)).toBe('chat');
  });

  it('sends a reasoning model max_completion_tokens, no temperature, its reasoning_effort', () => {
    const s = samplingFor({ model: 'o3', temperature: 0, maxTokens: 100, reasoningEffort: 'high' });
    const wire = toWireRequest({
      model: 'o3',
      messages: [{ role: 'user', content: 'hi' }],
      ctx: { role: 'updater', runId: 'r' },
      ...s,
    });
    expect(wire).toEqual({
      model: 'o3',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 100,
      reasoning_effort: 'high',
    });
  });

  it('sends a chat model temperature and max_tokens, and an endpoint may name the limit parameter', () => {
    expect(samplingFor({ model: 'gpt-4.1', temperature: 0.5, maxTokens: 9 })).toEqual({
      family: 'chat',
      temperature: 0.5,
      maxTokens: 9,
      limitParam: 'max_tokens',
    });
    const local = samplingFor({
      model: 'o3',
      temperature: 0,
      maxTokens: 9,
      limitParam: 'max_tokens',
    });
    expect(local.limitParam).toBe('max_tokens');
    expect(local.temperature).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { parseChatCompletion } from './openai-response.js';

describe('parseChatCompletion', () => {
  it('reads content, tool calls and usage with cached tokens', () => {
    const parsed = parseChatCompletion({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
            ],
          },
        },
      ],
      usage: {
        prompt_tokens: 50,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 32 },
      },
    });
    expect(parsed).toEqual({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
      },
      usage: { promptTokens: 50, cachedPromptTokens: 32, completionTokens: 5 },
    });
  });

  it("reads a reasoning model's reasoning tokens, which completion_tokens already counts", () => {
    const parsed = parseChatCompletion({
      choices: [{ message: { content: 'ok' }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 50,
        completion_tokens: 200,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 192 },
      },
    });
    expect(parsed.usage).toEqual({
      promptTokens: 50,
      cachedPromptTokens: 0,
      completionTokens: 200,
      reasoningTokens: 192,
    });
  });

  it('accepts what local servers send: no id or type, object arguments, no usage', () => {
    const parsed = parseChatCompletion({
      choices: [{ message: { tool_calls: [{ function: { name: 'f', arguments: { a: 1 } } }] } }],
    });
    expect(parsed.message.tool_calls).toEqual([
      { id: 'call_0', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
    ]);
    expect(parsed.message.content).toBeNull();
    expect(parsed.usage).toBeUndefined();
  });

  it('reads DeepSeek-style prompt cache hits', () => {
    const parsed = parseChatCompletion({
      choices: [{ message: { content: 'x' } }],
      usage: { prompt_tokens: 10, completion_tokens: 1, prompt_cache_hit_tokens: 8 },
    });
    expect(parsed.usage?.cachedPromptTokens).toBe(8);
  });

  it.each([
    ['an HTML page', '<html>Bad gateway</html>'],
    ['no choices', { choices: [] }],
    ['nothing', undefined],
  ])('throws a readable error for %s', (_what, body) => {
    expect(() => parseChatCompletion(body)).toThrow(/not a chat completion/);
  });
});

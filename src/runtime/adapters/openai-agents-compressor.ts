import type { Model, ModelResponse } from '@openai/agents';
import type { CompressorAnswer, CustomCompressorModel } from '../compressor-port.js';

/**
 * Any Agents SDK `Model` (the Responses or Chat Completions model of `@openai/agents-openai`, an
 * `aisdk(…)` model of `@openai/agents-extensions`, or your own class implementing `Model`) as
 * acon's compressor: one `getResponse` call per compression, with acon's compressor prompt as
 * the system instructions and one user message, no tools, text output, tracing off.
 *
 * @example
 * import { OpenAIChatCompletionsModel } from '@openai/agents';
 * const compressor = createContextCompressor({ guidelines, model: agentsModelCompressor(new OpenAIChatCompletionsModel(client, 'gpt-4.1-mini')) });
 */
export function agentsModelCompressor(model: Model, name = 'model'): CustomCompressorModel {
  return {
    provider: 'custom',
    model: `openai-agents:${(model as { model?: unknown }).model ?? name}`,
    async complete({ messages, temperature, maxTokens, signal }): Promise<CompressorAnswer> {
      const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
      const response = await model.getResponse({
        ...(system.length > 0 ? { systemInstructions: system.join('\n\n') } : {}),
        input: messages
          .filter((m) => m.role === 'user')
          .map((m) => ({ type: 'message' as const, role: 'user' as const, content: m.content })),
        modelSettings: { temperature, maxTokens },
        tools: [],
        outputType: 'text',
        handoffs: [],
        tracing: false,
        ...(signal ? { signal } : {}),
      });
      return {
        text: outputText(response),
        usage: {
          inputTokens: response.usage.inputTokens,
          outputTokens: response.usage.outputTokens,
        },
      };
    },
  };
}

/** The text of a response's assistant messages (what the SDK's final output would be). */
function outputText(response: ModelResponse): string {
  return response.output
    .flatMap((item) =>
      item.type === 'message' && item.role === 'assistant'
        ? item.content.flatMap((p) => (p.type === 'output_text' ? [p.text] : []))
        : [],
    )
    .join('');
}

/** An Agents SDK `Model`, told apart from acon's own compressor settings. */
export function isAgentsModel(model: unknown): model is Model {
  if (model === null || typeof model !== 'object') return false;
  const m = model as { getResponse?: unknown; getStreamedResponse?: unknown };
  return typeof m.getResponse === 'function' && typeof m.getStreamedResponse === 'function';
}

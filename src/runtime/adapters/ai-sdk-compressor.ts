import { generateText, type LanguageModel } from 'ai';
import type { CompressorAnswer, CustomCompressorModel } from '../compressor-port.js';

/**
 * Any AI SDK `LanguageModel` (a provider's LanguageModelV3 or V2: Anthropic, Bedrock, Vertex,
 * Mistral, …, or a gateway model id) as acon's compressor, called through `generateText` with
 * acon's compressor prompts. The AI SDK's own retries apply.
 *
 * @example
 * import { anthropic } from '@ai-sdk/anthropic';
 * const compressor = createContextCompressor({ guidelines, model: languageModelCompressor(anthropic('claude-haiku-4-5')) });
 */
export function languageModelCompressor(model: LanguageModel): CustomCompressorModel {
  const id = typeof model === 'string' ? model : `${model.provider}:${model.modelId}`;
  return {
    provider: 'custom',
    model: `ai-sdk:${id}`,
    async complete({ messages, temperature, maxTokens, signal }): Promise<CompressorAnswer> {
      const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
      const result = await generateText({
        model,
        ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
        messages: messages
          .filter((m) => m.role === 'user')
          .map((m) => ({ role: 'user' as const, content: m.content })),
        temperature,
        maxOutputTokens: maxTokens,
        ...(signal ? { abortSignal: signal } : {}),
      });
      const { inputTokens, outputTokens } = result.usage;
      const cut =
        result.finishReason === 'length'
          ? 'length'
          : result.finishReason === 'content-filter'
            ? 'content_filter'
            : undefined;
      return {
        text: result.text,
        usage: {
          ...(inputTokens !== undefined ? { inputTokens } : {}),
          ...(outputTokens !== undefined ? { outputTokens } : {}),
        },
        ...(cut ? { cut } : {}),
      };
    },
  };
}

/** A `LanguageModel` object or id, told apart from acon's own compressor settings. */
export function isLanguageModel(model: unknown): model is LanguageModel {
  if (typeof model === 'string') return true;
  if (model === null || typeof model !== 'object') return false;
  const m = model as { specificationVersion?: unknown; doGenerate?: unknown };
  return (
    (m.specificationVersion === 'v2' || m.specificationVersion === 'v3') &&
    typeof m.doGenerate === 'function'
  );
}

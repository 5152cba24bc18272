import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from 'langchain';
import type { CompressorAnswer, CustomCompressorModel } from '../compressor-port.js';

/**
 * Any LangChain chat model (`ChatAnthropic`, `ChatBedrockConverse`, `ChatOllama`, … or your own
 * `BaseChatModel`) as acon's compressor: acon's compressor prompt goes in as a system and a human
 * message through `invoke`, the AIMessage's text comes back. The model's own settings apply
 * (LangChain has no per-call token limit common to every chat model), and its own retries.
 *
 * @example
 * import { ChatAnthropic } from '@langchain/anthropic';
 * const compressor = createContextCompressor({ guidelines, model: chatModelCompressor(new ChatAnthropic({ model: 'claude-haiku-4-5' })) });
 */
export function chatModelCompressor(model: BaseChatModel): CustomCompressorModel {
  const named = model as { model?: unknown; modelName?: unknown };
  const name = typeof named.model === 'string' ? named.model : named.modelName;
  return {
    provider: 'custom',
    model: `langchain:${model._llmType()}${typeof name === 'string' ? `:${name}` : ''}`,
    async complete({ messages, signal }): Promise<CompressorAnswer> {
      const answer = await model.invoke(
        messages.map((m) =>
          m.role === 'system' ? new SystemMessage(m.content) : new HumanMessage(m.content),
        ),
        signal ? { signal } : {},
      );
      const usage = answer.usage_metadata;
      const meta = answer.response_metadata as { finish_reason?: unknown; stop_reason?: unknown };
      // OpenAI-style and Anthropic-style ways of saying the answer hit the token limit.
      const cut = meta.finish_reason === 'length' || meta.stop_reason === 'max_tokens';
      return {
        text: answer.text,
        ...(usage
          ? { usage: { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens } }
          : {}),
        ...(cut ? { cut: 'length' as const } : {}),
      };
    },
  };
}

/** A LangChain chat model, told apart from acon's own compressor settings. */
export function isChatModel(model: unknown): model is BaseChatModel {
  if (model === null || typeof model !== 'object') return false;
  const m = model as { invoke?: unknown; _llmType?: unknown };
  return typeof m.invoke === 'function' && typeof m._llmType === 'function';
}

import type { Clock } from '../clock.js';
import {
  type CallStore,
  createLlmClient,
  type MeteredLlmClient,
  countMessageTokens,
  countTokens,
  type LlmProvider,
  type ProviderRequest,
  type ProviderResponse,
} from '../llm/index.js';
import { oneModelConfig } from './one-model-config.js';

/**
 * One compressor call: acon's compressor prompt (a system message with the guideline, a user
 * message with what to compress) in, the model's text out. Rendering the prompt and parsing the
 * answer stay in acon, so every model behind this port gets the same prompts.
 */
export type CompressorCall = {
  messages: { role: 'system' | 'user'; content: string }[];
  /** @default 0 */
  temperature: number;
  /** Longest answer, in tokens. */
  maxTokens: number;
  signal?: AbortSignal;
};

/** A compressor model's answer to one {@link CompressorCall}. */
export type CompressorAnswer = {
  text: string;
  /** Tokens the model reported; an o200k estimate is recorded where it reports none. */
  usage?: { inputTokens?: number; outputTokens?: number };
  /** The answer was cut at the token limit or by a content filter: acon retries or gives up. */
  cut?: 'length' | 'content_filter';
};

/**
 * The compressor as any model a framework gives (LangChain `BaseChatModel`, AI SDK
 * `LanguageModel`, Agents SDK `Model`, or your own): the port behind which the compression core
 * knows no framework. The adapters build one from their framework's model object.
 *
 * @example
 * const model: CustomCompressorModel = {
 *   provider: 'custom',
 *   model: 'my-summarizer',
 *   complete: async ({ messages }) => ({ text: await mySummarizer(messages) }),
 * };
 */
export type CustomCompressorModel = {
  provider: 'custom';
  /** Names the model in acon's call cache: two models must not share a name. */
  model: string;
  complete(call: CompressorCall): Promise<CompressorAnswer>;
};

/** A compressor port as an acon LLM provider (no retries of its own: the framework's model has them). */
function portProvider(port: CustomCompressorModel): LlmProvider {
  return {
    name: 'custom',
    simulated: false,
    async chat(req: ProviderRequest, signal?: AbortSignal): Promise<ProviderResponse> {
      const messages = req.messages.flatMap((m) =>
        m.role === 'system' || m.role === 'user' ? [{ role: m.role, content: m.content }] : [],
      );
      const answer = await port.complete({
        messages,
        temperature: req.temperature ?? 0,
        maxTokens: req.maxTokens ?? 4096,
        ...(signal ? { signal } : {}),
      });
      return {
        message: { role: 'assistant', content: answer.text },
        usage: {
          promptTokens: answer.usage?.inputTokens ?? countMessageTokens(req.messages),
          cachedPromptTokens: 0,
          completionTokens: answer.usage?.outputTokens ?? countTokens(answer.text),
        },
        ...(answer.cut ? { finishReason: answer.cut } : {}),
      };
    },
  };
}

/**
 * An LlmClient for the two compressor roles on a custom model, through acon's own client (call
 * cache, concurrency limit, records). The port takes the place of the `openai` provider.
 */
export function createPortCompressorLlm(
  port: CustomCompressorModel,
  store: CallStore,
  clock?: Pick<Clock, 'now' | 'sleep'>,
): MeteredLlmClient {
  const role = { model: port.model, temperature: 0, max_tokens: 4096 };
  const config = oneModelConfig(role);
  return createLlmClient({
    config,
    providers: { openai: portProvider(port) },
    store,
    ...(clock ? { clock } : {}),
  });
}

/**
 * `acon/ai-sdk`: ACON for the Vercel AI SDK, as language-model middleware or as a `prepareStep`
 * function. Either way each step's `providerMetadata.acon` says what was compressed, so it shows
 * in `steps` and `onStepFinish`.
 *
 * @example
 * import { wrapLanguageModel, generateText } from 'ai';
 * import { aconMiddleware, aconPrepareStep } from 'acon/ai-sdk';
 * const model = wrapLanguageModel({ model: openai('gpt-4.1'), middleware: aconMiddleware(compressor) });
 * // or, leaving the model as it is:
 * await generateText({ model: openai('gpt-4.1'), tools, prepareStep: aconPrepareStep(compressor), prompt });
 */
import {
  wrapLanguageModel,
  type LanguageModel,
  type LanguageModelMiddleware,
  type ModelMessage,
} from 'ai';
import type { CompressionReport, ContextCompressor } from '../context-compressor.js';
import { isLanguageModel, languageModelCompressor } from './ai-sdk-compressor.js';
import { compressAiSdkMessages, type AiSdkPrompt } from './ai-sdk-messages.js';
import { reportingMiddleware, streamWithReport, withReport } from './ai-sdk-report.js';
import { resolveCompressor, type AdapterCompressor } from './compressor-input.js';

export type { AiSdkPrompt } from './ai-sdk-messages.js';
export { METADATA_KEY, type AconStepMetadata } from './ai-sdk-report.js';
export { languageModelCompressor } from './ai-sdk-compressor.js';

/**
 * A compressor from `createContextCompressor`, or its options where `model` may also be any AI
 * SDK `LanguageModel` (`{ guidelines, model: anthropic('claude-haiku-4-5') }`).
 */
export type AiSdkCompressor = AdapterCompressor<LanguageModel>;

/**
 * Middleware whose `transformParams` compresses the prompt of every call (`generateText`,
 * `streamText`, each step of a tool loop) with `compressor`; the caller's messages stay as they
 * are, only what the model receives is compressed. The model's answer carries the report in
 * `providerMetadata.acon`.
 */
export function aconMiddleware(input: AiSdkCompressor): LanguageModelMiddleware {
  const compressor = resolveCompressor(input, isLanguageModel, languageModelCompressor);
  // wrapGenerate/wrapStream get the very params object transformParams returned.
  const reports = new WeakMap<object, CompressionReport>();
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      const { messages, report } = await compressAiSdkMessages(compressor, params.prompt);
      const out = { ...params, prompt: messages };
      reports.set(out, report);
      return out;
    },
    wrapGenerate: async ({ doGenerate, params }) =>
      withReport(await doGenerate(), reports.get(params)),
    wrapStream: async ({ doStream, params }) =>
      streamWithReport(await doStream(), reports.get(params)),
  };
}

/** What `aconPrepareStep` reads of `prepareStep`'s options (ai 6: PrepareStepFunction). */
export type PrepareStepInput = { messages: ModelMessage[]; model: LanguageModel };
/** What it returns: the step's compressed messages, and the model that reports them. */
export type PrepareStepOutput = { messages: ModelMessage[]; model?: LanguageModel };

/**
 * A `prepareStep` for `generateText`, `streamText` and `ToolLoopAgent`: each step's messages are
 * compressed (tool results over T_obs, the history folded over T_hist) and returned as the step's
 * `messages`; the caller's own messages and `steps` stay whole. The step's model comes back
 * wrapped so that its answer carries the report in `providerMetadata.acon` (a model given by id,
 * or a LanguageModelV2, is left as it is and reports through `onReport` only).
 *
 * The `system` option is not among the messages `prepareStep` gets, so the compressors see the
 * task without it. To combine with your own `prepareStep`, call this one inside it and spread
 * its result into yours.
 */
export function aconPrepareStep(
  input: AiSdkCompressor,
): (step: PrepareStepInput) => Promise<PrepareStepOutput> {
  const compressor = resolveCompressor(input, isLanguageModel, languageModelCompressor);
  return async ({ messages, model }) => {
    const out = await compressAiSdkMessages(compressor, messages);
    const wrappable = typeof model === 'object' && model.specificationVersion === 'v3';
    return {
      messages: out.messages,
      ...(wrappable
        ? { model: wrapLanguageModel({ model, middleware: reportingMiddleware(out.report) }) }
        : {}),
    };
  };
}

/** The prompt with ACON applied; the same objects where nothing changed. */
export async function compressPrompt(
  compressor: ContextCompressor,
  prompt: AiSdkPrompt,
): Promise<AiSdkPrompt> {
  return (await compressAiSdkMessages(compressor, prompt)).messages;
}

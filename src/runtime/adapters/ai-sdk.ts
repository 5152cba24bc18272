/**
 * `acon/ai-sdk`: ACON for the Vercel AI SDK as language-model middleware.
 *
 * @example
 * import { wrapLanguageModel, generateText } from 'ai';
 * import { aconMiddleware } from 'acon/ai-sdk';
 * const model = wrapLanguageModel({ model: openai('gpt-4.1'), middleware: aconMiddleware(compressor) });
 */
import type { LanguageModel, LanguageModelMiddleware } from 'ai';
import type { ContextCompressor } from '../context-compressor.js';
import { isLanguageModel, languageModelCompressor } from './ai-sdk-compressor.js';
import { resolveCompressor, type AdapterCompressor } from './compressor-input.js';
import type { OpenAiMessage } from '../openai-messages.js';
import { outputText, rebuild, type Mapped } from '../rebuild.js';

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
/** The AI SDK's prompt (LanguageModelV3Prompt): what a model receives. */
export type AiSdkPrompt = CallOptions['prompt'];
type Message = AiSdkPrompt[number];
type ToolResultOutput = Extract<
  Extract<Message, { role: 'tool' }>['content'][number],
  { type: 'tool-result' }
>['output'];

/**
 * A compressor from `createContextCompressor`, or its options where `model` may also be any AI
 * SDK `LanguageModel` (`{ guidelines, model: anthropic('claude-haiku-4-5') }`).
 */
export type AiSdkCompressor = AdapterCompressor<LanguageModel>;

/**
 * Middleware whose `transformParams` compresses the prompt of every call (`generateText`,
 * `streamText`, each step of a tool loop) with `compressor`; the caller's messages stay as they
 * are, only what the model receives is compressed.
 */
export function aconMiddleware(input: AiSdkCompressor): LanguageModelMiddleware {
  const compressor = resolveCompressor(input, isLanguageModel, languageModelCompressor);
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => ({
      ...params,
      prompt: await compressPrompt(compressor, params.prompt),
    }),
  };
}

export { languageModelCompressor } from './ai-sdk-compressor.js';

/** The prompt with ACON applied; the same objects where nothing changed. */
export async function compressPrompt(
  compressor: ContextCompressor,
  prompt: AiSdkPrompt,
): Promise<AiSdkPrompt> {
  const mapped = toOpenAi(prompt);
  const plan = await compressor.plan(mapped.messages);
  return rebuild<Message>(prompt, mapped, plan, {
    summary: (text) => ({ role: 'user', content: [{ type: 'text', text }] }),
    replace: (m, parts) => replaceParts(m, parts),
  });
}

function textOf(parts: readonly { type: string; text?: string }[]): string {
  return parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('\n');
}

/** A tool result's output as the text a model would read. */
function resultText(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return outputText(output.value);
    case 'execution-denied':
      return output.reason ?? 'execution denied';
    default:
      return outputText(output);
  }
}

function toOpenAi(prompt: AiSdkPrompt): Mapped {
  const mapped: Mapped = { messages: [], source: [] };
  const push = (m: OpenAiMessage, message: number, part?: number) => {
    mapped.messages.push(m);
    mapped.source.push(part === undefined ? { message } : { message, part });
  };
  prompt.forEach((m, i) => {
    switch (m.role) {
      case 'system':
        push({ role: 'system', content: m.content }, i);
        break;
      case 'user':
        push({ role: 'user', content: textOf(m.content) }, i);
        break;
      case 'assistant': {
        const calls = m.content.flatMap((p) =>
          p.type === 'tool-call' && !p.providerExecuted
            ? [
                {
                  id: p.toolCallId,
                  type: 'function' as const,
                  function: { name: p.toolName, arguments: outputText(p.input) },
                },
              ]
            : [],
        );
        const text = textOf(m.content);
        push(
          calls.length > 0
            ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls }
            : { role: 'assistant', content: text },
          i,
        );
        break;
      }
      case 'tool':
        m.content.forEach((p, j) => {
          if (p.type !== 'tool-result') return;
          push({ role: 'tool', tool_call_id: p.toolCallId, content: resultText(p.output) }, i, j);
        });
        break;
    }
  });
  return mapped;
}

function replaceParts(m: Message, parts: Map<number, string>): Message {
  if (m.role === 'tool') {
    return {
      ...m,
      content: m.content.map((p, j) => {
        const text = parts.get(j);
        return text === undefined || p.type !== 'tool-result'
          ? p
          : { ...p, output: { type: 'text' as const, value: text } };
      }),
    };
  }
  const text = parts.get(-1);
  if (text === undefined || m.role !== 'user') return m;
  return { ...m, content: [{ type: 'text', text }, ...m.content.filter((p) => p.type !== 'text')] };
}

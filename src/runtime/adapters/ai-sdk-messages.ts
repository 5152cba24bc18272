import type { LanguageModelMiddleware, ModelMessage } from 'ai';
import type { CompressionReport, ContextCompressor } from '../context-compressor.js';
import type { OpenAiMessage } from '../openai-messages.js';
import { outputText, rebuild, type Mapped } from '../rebuild.js';

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
/** The AI SDK's prompt (LanguageModelV3Prompt): what a model receives. */
export type AiSdkPrompt = CallOptions['prompt'];

/**
 * A message of either AI SDK list: the model's prompt (middleware) or the `ModelMessage`s that
 * `prepareStep` gets. They differ only in that a `ModelMessage`'s content may be a plain string.
 */
type AnyMessage = AiSdkPrompt[number] | ModelMessage;
type Part = { type: string; text?: string };

/**
 * The messages with ACON applied (the same objects where nothing changed) and the report of
 * what was done.
 */
export async function compressAiSdkMessages<T extends AnyMessage>(
  compressor: ContextCompressor,
  messages: readonly T[],
): Promise<{ messages: T[]; report: CompressionReport }> {
  const mapped = toOpenAi(messages);
  const plan = await compressor.plan(mapped.messages);
  const out = rebuild<T>(messages, mapped, plan, {
    summary: (text) => ({ role: 'user', content: [{ type: 'text', text }] }) as T,
    replace: (m, parts) => replaceParts(m, parts),
  });
  return { messages: out, report: plan.report };
}

function textOf(content: string | readonly Part[]): string {
  if (typeof content === 'string') return content;
  return content
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('\n');
}

/** A tool result's output as the text a model would read. */
function resultText(output: { type: string; value?: unknown; reason?: string }): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return typeof output.value === 'string' ? output.value : outputText(output.value);
    case 'json':
    case 'error-json':
      return outputText(output.value);
    case 'execution-denied':
      return output.reason ?? 'execution denied';
    default:
      return outputText(output);
  }
}

function toOpenAi(messages: readonly AnyMessage[]): Mapped {
  const mapped: Mapped = { messages: [], source: [] };
  const push = (m: OpenAiMessage, message: number, part?: number) => {
    mapped.messages.push(m);
    mapped.source.push(part === undefined ? { message } : { message, part });
  };
  messages.forEach((m, i) => {
    switch (m.role) {
      case 'system':
        push({ role: 'system', content: m.content }, i);
        break;
      case 'user':
        push({ role: 'user', content: textOf(m.content) }, i);
        break;
      case 'assistant': {
        const parts = typeof m.content === 'string' ? [] : m.content;
        const calls = parts.flatMap((p) =>
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
        const text = textOf(m.content as string | Part[]);
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

function replaceParts<T extends AnyMessage>(m: T, parts: Map<number, string>): T {
  if (m.role === 'tool') {
    const content = (m.content as Part[]).map((p, j) => {
      const text = parts.get(j);
      return text === undefined || p.type !== 'tool-result'
        ? p
        : { ...p, output: { type: 'text' as const, value: text } };
    });
    return { ...m, content } as T;
  }
  const text = parts.get(-1);
  if (text === undefined || m.role !== 'user') return m;
  const other = typeof m.content === 'string' ? [] : m.content.filter((p) => p.type !== 'text');
  return { ...m, content: [{ type: 'text', text }, ...other] } as T;
}

/**
 * `acon/openai-agents`: ACON for the OpenAI Agents SDK (JS) as a `callModelInputFilter`.
 *
 * @example
 * import { run } from '@openai/agents';
 * import { aconInputFilter } from 'acon/openai-agents';
 * await run(agent, task, { callModelInputFilter: aconInputFilter(compressor) });
 */
import type { AgentInputItem, CallModelInputFilter, Model } from '@openai/agents';
import type { ContextCompressor } from '../context-compressor.js';
import { resolveCompressor, type AdapterCompressor } from './compressor-input.js';
import { agentsModelCompressor, isAgentsModel } from './openai-agents-compressor.js';
import type { OpenAiMessage } from '../openai-messages.js';
import { outputText, rebuild, type Mapped } from '../rebuild.js';

type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };
type AssistantDraft = { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] };

/**
 * A compressor from `createContextCompressor`, or its options where `model` may also be any
 * Agents SDK `Model` (`{ guidelines, model: new OpenAIChatCompletionsModel(client, 'gpt-4.1-mini') }`).
 */
export type AgentsCompressor = AdapterCompressor<Model>;

export { agentsModelCompressor } from './openai-agents-compressor.js';

/**
 * A filter that compresses the input items of every model call of a run: function results over
 * T_obs by the observation compressor, the history over T_hist folded into a summary. The run's
 * own items are not changed; the instructions pass through.
 */
export function aconInputFilter(input: AgentsCompressor): CallModelInputFilter {
  const compressor = resolveCompressor(input, isAgentsModel, (m) => agentsModelCompressor(m));
  return async ({ modelData }) => ({
    ...modelData,
    input: await compressInput(compressor, modelData.input),
  });
}

/** The input items with ACON applied; the same objects where nothing changed. */
export async function compressInput(
  compressor: ContextCompressor,
  input: AgentInputItem[],
): Promise<AgentInputItem[]> {
  const mapped = toOpenAi(input);
  const plan = await compressor.plan(mapped.messages);
  return rebuild<AgentInputItem>(input, mapped, plan, {
    summary: (text) => ({ type: 'message', role: 'user', content: text }),
    replace: (item, parts) => replace(item, parts.get(-1)),
  });
}

/** Text of a message's content: a string, or the text of its parts. */
function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return outputText(content);
  return content
    .map((p: { text?: unknown; refusal?: unknown }) =>
      typeof p.text === 'string' ? p.text : typeof p.refusal === 'string' ? p.refusal : '',
    )
    .filter((t) => t !== '')
    .join('\n');
}

function resultText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output !== null && typeof output === 'object' && !Array.isArray(output)) {
    const o = output as { type?: unknown; text?: unknown };
    if (o.type === 'text' && typeof o.text === 'string') return o.text;
  }
  return Array.isArray(output) ? partsText(output) : outputText(output);
}

/**
 * Items as chat messages: a user or system message is one message; reasoning, an assistant
 * message and the function calls after it are one assistant message (a turn's action); each
 * function result is a tool message. Other items (hosted tools) travel with the message before.
 */
function toOpenAi(input: readonly AgentInputItem[]): Mapped {
  const mapped: Mapped = { messages: [], source: [] };
  let open: AssistantDraft | null = null;
  const assistant = (i: number): AssistantDraft => {
    if (open) return open;
    open = { role: 'assistant', content: null };
    mapped.messages.push(open as OpenAiMessage);
    mapped.source.push({ message: i });
    return open;
  };
  input.forEach((item, i) => {
    const type = 'type' in item ? item.type : 'message';
    if (type === 'message' && 'role' in item) {
      if (item.role === 'assistant') {
        const a = assistant(i);
        const text = partsText(item.content);
        a.content = a.content === null ? text : `${a.content}\n${text}`;
        return;
      }
      open = null;
      mapped.messages.push(
        item.role === 'system'
          ? { role: 'system', content: partsText(item.content) }
          : { role: 'user', content: partsText(item.content) },
      );
      mapped.source.push({ message: i });
    } else if (type === 'reasoning') {
      assistant(i);
    } else if (item.type === 'function_call') {
      const a = assistant(i);
      (a.tool_calls ??= []).push({
        id: item.callId,
        type: 'function',
        function: { name: item.name, arguments: item.arguments },
      });
    } else if (item.type === 'function_call_result') {
      open = null;
      mapped.messages.push({
        role: 'tool',
        tool_call_id: item.callId,
        content: resultText(item.output),
      });
      mapped.source.push({ message: i });
    }
  });
  return mapped;
}

function replace(item: AgentInputItem, text: string | undefined): AgentInputItem {
  if (text === undefined) return item;
  if ('type' in item && item.type === 'function_call_result') {
    return {
      ...item,
      output: typeof item.output === 'string' ? text : { type: 'text' as const, text },
    };
  }
  if ('role' in item && item.role === 'user') return { ...item, content: text };
  return item;
}

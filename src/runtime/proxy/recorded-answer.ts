import type { AssistantMessage } from '../../domain/index.js';
import type { ProxiedExchange } from './exchange.js';

/** The upstream's answer to one proxied request as acon records an agent call. */
export type RecordedAnswer = { message: AssistantMessage; usage: Usage };

/**
 * The assistant message and usage of an answer, in the format of the API it came from: a chat
 * completion or a Responses API response, each streamed or not; null when it cannot be read.
 */
export function recordedAnswer(x: ProxiedExchange): RecordedAnswer | null {
  if (x.api === 'responses') {
    return x.streamed ? fromResponsesStream(x.answer) : fromResponsesJson(x.answer);
  }
  return x.streamed ? fromStream(x.answer) : fromJson(x.answer);
}

type Usage = {
  promptTokens: number;
  cachedPromptTokens: number;
  completionTokens: number;
  reasoningTokens?: number;
};
type WireUsage = {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
};
type WireCall = { index?: number; id?: string; function?: { name?: string; arguments?: string } };

function usageOf(u: WireUsage | undefined): Usage {
  return {
    promptTokens: u?.prompt_tokens ?? 0,
    cachedPromptTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
    completionTokens: u?.completion_tokens ?? 0,
    // A recorded reasoning model's hidden tokens: part of the output it was billed for.
    reasoningTokens: u?.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

function message(content: string | null, calls: WireCall[]): AssistantMessage {
  const toolCalls = calls.map((c) => ({
    id: c.id ?? '',
    type: 'function' as const,
    function: { name: c.function?.name ?? '', arguments: c.function?.arguments ?? '' },
  }));
  return toolCalls.length > 0
    ? { role: 'assistant', content, tool_calls: toolCalls }
    : { role: 'assistant', content };
}

function fromJson(text: string): { message: AssistantMessage; usage: Usage } | null {
  try {
    const body = JSON.parse(text) as {
      choices?: { message?: { content?: string | null; tool_calls?: WireCall[] } }[];
      usage?: WireUsage;
    };
    const m = body.choices?.[0]?.message;
    if (!m) return null;
    return { message: message(m.content ?? null, m.tool_calls ?? []), usage: usageOf(body.usage) };
  } catch {
    return null;
  }
}

/** The assistant message of a chat-completions event stream (`data: {…}` lines). */
function fromStream(text: string): { message: AssistantMessage; usage: Usage } | null {
  let content: string | null = null;
  const calls: WireCall[] = [];
  let usage: WireUsage | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') continue;
    let chunk: {
      choices?: { delta?: { content?: string | null; tool_calls?: WireCall[] } }[];
      usage?: WireUsage;
    };
    try {
      chunk = JSON.parse(data) as typeof chunk;
    } catch {
      return null;
    }
    if (chunk.usage) usage = chunk.usage;
    const delta = chunk.choices?.[0]?.delta;
    if (typeof delta?.content === 'string') content = (content ?? '') + delta.content;
    for (const d of delta?.tool_calls ?? []) {
      const i = d.index ?? 0;
      const call = (calls[i] ??= { function: { name: '', arguments: '' } });
      if (d.id) call.id = d.id;
      if (d.function?.name) call.function!.name += d.function.name;
      if (d.function?.arguments) call.function!.arguments += d.function.arguments;
    }
  }
  return { message: message(content, calls.filter(Boolean)), usage: usageOf(usage) };
}

/**
 * The Responses API's usage (openai-node `ResponseUsage`): `input_tokens` includes the cached
 * ones (`input_tokens_details.cached_tokens`), `output_tokens` the reasoning ones
 * (`output_tokens_details.reasoning_tokens`), as chat completions' prompt and completion tokens do.
 */
type ResponsesUsage = {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens_details?: { reasoning_tokens?: number };
};

/** The output items acon reads (openai-node `ResponseOutputItem`); reasoning and others are skipped. */
type ResponsesOutputItem = {
  type?: string;
  content?: { type?: string; text?: string }[];
  call_id?: string;
  name?: string;
  arguments?: string;
};
type ResponsesBody = { output?: ResponsesOutputItem[]; usage?: ResponsesUsage | null };

function responsesUsage(u: ResponsesUsage | null | undefined): Usage {
  return {
    promptTokens: u?.input_tokens ?? 0,
    cachedPromptTokens: u?.input_tokens_details?.cached_tokens ?? 0,
    completionTokens: u?.output_tokens ?? 0,
    reasoningTokens: u?.output_tokens_details?.reasoning_tokens ?? 0,
  };
}

/** A response's output as one assistant message: its `output_text` parts and `function_call`s. */
function fromResponse(body: ResponsesBody): RecordedAnswer | null {
  if (!Array.isArray(body.output)) return null;
  let content: string | null = null;
  const calls: WireCall[] = [];
  for (const item of body.output) {
    if (item.type === 'message') {
      for (const part of item.content ?? []) {
        if (part.type === 'output_text') content = (content ?? '') + (part.text ?? '');
      }
    } else if (item.type === 'function_call') {
      calls.push({
        ...(item.call_id !== undefined ? { id: item.call_id } : {}),
        function: { name: item.name ?? '', arguments: item.arguments ?? '' },
      });
    }
  }
  return { message: message(content, calls), usage: responsesUsage(body.usage) };
}

function fromResponsesJson(text: string): RecordedAnswer | null {
  try {
    return fromResponse(JSON.parse(text) as ResponsesBody);
  } catch {
    return null;
  }
}

/** Events that end a Responses stream and carry the whole response (output and usage). */
const FINAL_EVENTS: readonly string[] = [
  'response.completed',
  'response.incomplete',
  'response.failed',
];

/**
 * A Responses event stream (`event: …` / `data: {…}` pairs): the response of its final event
 * (`response.completed`, or `response.incomplete` / `response.failed`), which holds the whole
 * output and the usage, so the deltas before it need not be reassembled.
 */
function fromResponsesStream(text: string): RecordedAnswer | null {
  let final: ResponsesBody | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    let event: { type?: string; response?: ResponsesBody };
    try {
      event = JSON.parse(line.slice(5).trim()) as typeof event;
    } catch {
      continue;
    }
    if (event.type && FINAL_EVENTS.includes(event.type) && event.response) final = event.response;
  }
  return final ? fromResponse(final) : null;
}

import { createHash } from 'node:crypto';
import type { AssistantMessage, ChatMessage } from '../../domain/message.js';
import type { CallStore } from '../../llm/call-store.js';
import { contentText, indexTrajectory, type OpenAiMessage } from '../openai-messages.js';
import type { ProxiedExchange } from './proxy-server.js';

/**
 * `acon proxy --record`: one proxied chat completion as an `agent` call of the proxy's run, the
 * request as it went upstream (compressed) and the answer (a stream reassembled), so production
 * traffic can be exported and analysed like acon's own rollouts. Headers are not part of it: the
 * client's key is never stored.
 */
export function recordExchange(store: CallStore, runId: string, x: ProxiedExchange): void {
  const messages = toChatMessages((x.body.messages ?? []) as OpenAiMessage[]);
  const model = typeof x.body.model === 'string' ? x.body.model : 'unknown';
  const answer = x.status < 400 ? (x.streamed ? fromStream(x.answer) : fromJson(x.answer)) : null;
  store.recordCall({
    ctx: { role: 'agent', runId, rolloutId: conversationId(messages) },
    provider: 'upstream',
    model,
    requestHash: createHash('sha256').update(JSON.stringify(messages)).digest('hex'),
    request: { messages, model },
    response: answer ? { message: answer.message, usage: answer.usage } : null,
    usage: answer?.usage ?? { promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0 },
    costUsd: 0,
    latencyMs: 0,
    cached: false,
    error: answer ? null : `upstream answered HTTP ${x.status}`,
  });
}

/** Requests of one conversation share their system prompt and task. */
function conversationId(messages: ChatMessage[]): string {
  const head = messages.filter((m) => m.role === 'system' || m.role === 'user').slice(0, 2);
  return createHash('sha256').update(JSON.stringify(head)).digest('hex').slice(0, 16);
}

function toChatMessages(messages: OpenAiMessage[]): ChatMessage[] {
  const { trajectory, headEnd } = indexTrajectory(messages);
  const head: ChatMessage[] = messages
    .slice(0, headEnd)
    .map((m) =>
      m.role === 'system' || m.role === 'developer'
        ? { role: 'system', content: contentText(m.content) }
        : { role: 'user', content: contentText(m.content) },
    );
  return [...head, ...trajectory.turns.flatMap((t) => [t.assistant, ...t.observations])];
}

type Usage = { promptTokens: number; cachedPromptTokens: number; completionTokens: number };
type WireUsage = {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
};
type WireCall = { index?: number; id?: string; function?: { name?: string; arguments?: string } };

function usageOf(u: WireUsage | undefined): Usage {
  return {
    promptTokens: u?.prompt_tokens ?? 0,
    cachedPromptTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
    completionTokens: u?.completion_tokens ?? 0,
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

import type { TokenCounter } from '../../src/llm/tokenizer.js';
import type {
  AssistantMessage,
  CallContext,
  ChatMessage,
  ChatRequest,
  ChatResult,
  CutReason,
  LlmClient,
  LlmRole,
} from '../../src/llm/types.js';
import type { Trajectory, Turn } from '../../src/domain/trajectory.js';

/**
 * What a script answers: an assistant message, plain text, an error to throw, or an answer the
 * provider cut (`finish_reason` length or content_filter), made with `cut()`.
 */
export type Reply = AssistantMessage | string | Error | CutReply;
export type CutReply = { cut: CutReason; reply: AssistantMessage | string };

/** An answer as a provider returns it when the token limit (or its filter) stopped it. */
export const cut = (reply: AssistantMessage | string, reason: CutReason = 'length'): CutReply => ({
  cut: reason,
  reply,
});
export type Script = Reply[] | ((req: ChatRequest, ctx: CallContext) => Reply | Promise<Reply>);

/**
 * An LlmClient answering from per-role scripts, for unit tests: a list is consumed in order,
 * a function computes each answer. Every call is kept in `calls`; call ids count from 1.
 */
export class ScriptedLlm implements LlmClient {
  readonly calls: { req: ChatRequest; ctx: CallContext }[] = [];

  constructor(private readonly scripts: Partial<Record<LlmRole, Script>>) {}

  callsOf(role: LlmRole) {
    return this.calls.filter((c) => c.ctx.role === role);
  }

  async chat(req: ChatRequest, ctx: CallContext): Promise<ChatResult> {
    this.calls.push({ req: structuredClone(req), ctx: { ...ctx } });
    const script = this.scripts[ctx.role];
    if (script === undefined) throw new Error(`ScriptedLlm: no script for role ${ctx.role}`);
    let reply: Reply | undefined;
    if (typeof script === 'function') reply = await script(req, ctx);
    else reply = script.shift();
    if (reply === undefined) throw new Error(`ScriptedLlm: script for ${ctx.role} is used up`);
    if (reply instanceof Error) throw reply;
    const finishReason = typeof reply === 'object' && 'cut' in reply ? reply.cut : undefined;
    const answer = typeof reply === 'object' && 'cut' in reply ? reply.reply : reply;
    const message: AssistantMessage =
      typeof answer === 'string' ? { role: 'assistant', content: answer } : answer;
    return {
      message,
      ...(finishReason !== undefined ? { finishReason } : {}),
      usage: { promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0 },
      costUsd: 0,
      cached: false,
      latencyMs: 1,
      provider: 'scripted',
      model: 'scripted',
      callId: this.calls.length,
    };
  }
}

/** One character = one token, no per-message overhead: test arithmetic stays obvious. */
export const charTokens: TokenCounter = {
  countTokens: (text) => text.length,
  countMessageTokens: (messages) =>
    messages.reduce(
      (n, m) =>
        n +
        (m.content ?? '').length +
        (m.role === 'assistant'
          ? (m.tool_calls ?? []).reduce(
              (k, c) => k + c.function.name.length + c.function.arguments.length,
              0,
            )
          : 0),
      0,
    ),
};

/** A tool-calling turn: reasoning, one call `tool(args)` with id `call_<id>`, its result. */
export function toolTurn(id: string | number, result: string, tool = 'lookup'): Turn {
  return {
    assistant: {
      role: 'assistant',
      content: `reasoning ${id}`,
      tool_calls: [
        {
          id: `call_${id}`,
          type: 'function',
          function: { name: tool, arguments: JSON.stringify({ n: id }) },
        },
      ],
    },
    observations: [{ role: 'tool', tool_call_id: `call_${id}`, content: result }],
  };
}

/** A trajectory of `count` tool turns whose results are `result(i)` (i from 1). */
export function trajectoryOf(count: number, result = (i: number) => `result ${i}`): Trajectory {
  return {
    system: 'SYSTEM',
    task: 'TASK',
    turns: Array.from({ length: count }, (_, k) => toolTurn(k + 1, result(k + 1))),
  };
}

/** Checks the chat-format invariant; returns the first violation, or null. */
export function pairingViolation(messages: readonly ChatMessage[]): string | null {
  let open = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      if (!open.has(m.tool_call_id))
        return `message ${i}: tool result ${m.tool_call_id} without its call`;
      open.delete(m.tool_call_id);
      continue;
    }
    if (open.size > 0) return `message ${i}: calls ${[...open].join(', ')} have no result`;
    open = new Set(m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []);
  }
  if (open.size > 0) return `end: calls ${[...open].join(', ')} have no result`;
  return null;
}

/** A compressor answer in the contract's format. */
export function refined(text: string): string {
  return `# Refined Observation\n${text}`;
}
export function historySummary(text: string): string {
  return `# History Summary\n${text}`;
}

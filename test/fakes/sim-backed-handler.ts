import type { ReferencePlan } from '../../src/bench/types.js';
import { createSimProvider } from '../../src/sim/index.js';
import type { ChatMessage, LlmRole } from '../../src/llm/types.js';
import { reply, type FakeHandler, type FakeRequest, type FakeUsage } from './fake-openai-server.js';

/**
 * A fake OpenAI-compatible model that answers like the `sim` provider: the tests drive the
 * real `openai` client, HTTP, retries, cache and recording while the answers stay meaningful
 * (the agent solves apptown tasks, the compressors follow guidelines, the analyzer and updater
 * answer in their JSON schemas). The role is read off the request as a server would have to.
 */
export function simBackedHandler(opts: {
  /** Finds the task of an agent request from its first user message. */
  taskOf: (firstUserMessage: string) => string;
  planFor: (taskId: string) => Promise<ReferencePlan>;
  /** Lets a test break a role's answers (malformed JSON, invalid guidelines). */
  override?: (role: LlmRole, req: FakeRequest) => ReturnType<FakeHandler> | undefined;
  /** Usage as a provider bills it (reasoning, cached tokens) from the counts of the answer. */
  usage?: (
    role: LlmRole,
    counted: { prompt_tokens: number; completion_tokens: number },
  ) => FakeUsage;
}): FakeHandler {
  const sim = createSimProvider({ seed: 7, refetchLimit: 2, planFor: opts.planFor });
  const messages = internMessages();
  return async (req) => {
    const body = req.body;
    if (!body) return reply.error(400, 'not a chat request');
    const role = roleOf(req);
    const custom = opts.override?.(role, req);
    if (custom) return custom;
    const firstUser = body.messages.find((m) => m.role === 'user')?.content ?? '';
    const taskId = role === 'agent' ? opts.taskOf(firstUser) : undefined;
    const responseFormat = responseFormatOf(body.response_format);
    const res = await sim.chat({
      model: body.model,
      messages: messages(body.messages),
      tools: body.tools,
      responseFormat,
      ctx: { role, runId: 'fake', taskId },
    });
    const counted = {
      prompt_tokens: res.usage.promptTokens,
      completion_tokens: res.usage.completionTokens,
    };
    const usage = opts.usage?.(role, counted) ?? counted;
    const calls = res.message.tool_calls ?? [];
    if (calls.length > 0) {
      return reply.toolCalls(
        calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
        { content: res.message.content, usage },
      );
    }
    return reply.text(res.message.content ?? '', { usage });
  };
}

/**
 * One object per distinct message. Every request carries the whole history again as new JSON,
 * and the sim and the tokenizer remember their reading per message object (as they get it from
 * an in-process agent loop), so without this each request re-read the rollout so far (issue #28).
 * Looked up by content first, then by the rest of the message as JSON: stringifying whole
 * messages (observations of several KB) for every request was 5% of the fault-injection test.
 * Up to 20,000 messages are kept; then the map starts again.
 */
function internMessages(): (list: readonly ChatMessage[]) => ChatMessage[] {
  const seen = new Map<unknown, Map<string, ChatMessage>>();
  let size = 0;
  return (list) =>
    list.map((m) => {
      const { content, ...rest } = m;
      const key = JSON.stringify(rest);
      let byRest = seen.get(content);
      const hit = byRest?.get(key);
      if (hit !== undefined) return hit;
      if (size >= 20_000) {
        seen.clear();
        size = 0;
        byRest = undefined;
      }
      if (byRest === undefined) seen.set(content, (byRest = new Map()));
      byRest.set(key, m);
      size++;
      return m;
    });
}

export function roleOf(req: FakeRequest): LlmRole {
  const body = req.body!;
  if (body.tools && body.tools.length > 0) return 'agent';
  const format = responseFormatOf(body.response_format);
  if (format?.name === 'guideline_update') return 'updater';
  if (format) return 'analyzer';
  const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
  if (system.includes('# Refined Observation')) return 'obs_compressor';
  if (system.includes('# History Summary')) return 'hist_compressor';
  return 'agent';
}

function responseFormatOf(
  raw: unknown,
): { name: string; schema: Record<string, unknown> } | undefined {
  const f = raw as
    { type?: string; json_schema?: { name: string; schema: Record<string, unknown> } } | undefined;
  return f?.type === 'json_schema' && f.json_schema
    ? { name: f.json_schema.name, schema: f.json_schema.schema }
    : undefined;
}

import type { AssistantMessage, ChatMessage } from '../llm/index.js';

/** What the loop records for a tool call the environment did not answer. */
export const MISSING_RESULT = 'Error: the environment returned no result for this call.';

/**
 * The observation messages of one turn in the order the chat format requires: one tool message
 * per tool call, in call order, right after the assistant message; then any other messages. A
 * missing result gets an error result; a tool message answering no call of this turn becomes a
 * user message (its text kept), so no view can hold a tool message without its call.
 */
export function pairObservations(
  assistant: AssistantMessage,
  messages: readonly ChatMessage[],
): ChatMessage[] {
  const calls = assistant.tool_calls ?? [];
  const byId = new Map<string, ChatMessage>();
  const others: ChatMessage[] = [];
  const callIds = new Set(calls.map((c) => c.id));
  for (const m of messages) {
    if (m.role === 'tool' && callIds.has(m.tool_call_id) && !byId.has(m.tool_call_id)) {
      byId.set(m.tool_call_id, m);
    } else if (m.role === 'tool') {
      others.push({ role: 'user', content: m.content });
    } else {
      others.push(m);
    }
  }
  const results: ChatMessage[] = calls.map(
    (c) => byId.get(c.id) ?? { role: 'tool', tool_call_id: c.id, content: MISSING_RESULT },
  );
  return [...results, ...others];
}

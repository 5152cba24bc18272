import type { AssistantMessage, ChatMessage, ToolCall } from '../llm/index.js';

/**
 * What a tool-calling environment (apptown, qa) answers to an assistant message: one tool
 * message per call with the result of `run`, or `noToolCall` as a user message when the agent
 * called no tool.
 */
export function answerToolCalls(
  message: AssistantMessage,
  run: (call: ToolCall) => string,
  noToolCall: string,
): ChatMessage[] {
  const calls = message.tool_calls ?? [];
  if (calls.length === 0) return [{ role: 'user', content: noToolCall }];
  return calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: run(call) }));
}

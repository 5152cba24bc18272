import type { AssistantMessage } from '../../llm/index.js';

/**
 * An assistant message as the OpenAI-shaped formats write it (openai, trl), keys in a fixed
 * order: role, content, tool calls. Content is left out only beside tool calls, where a bare null
 * would read as an empty turn; `args` writes a call's arguments (a JSON string, or TRL's object).
 */
export function assistantTurn<A>(m: AssistantMessage, args: (json: string) => A) {
  const calls = m.tool_calls && m.tool_calls.length > 0 ? m.tool_calls : null;
  return {
    role: 'assistant' as const,
    ...(calls && m.content === null ? {} : { content: m.content ?? '' }),
    ...(calls
      ? {
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function' as const,
            function: { name: c.function.name, arguments: args(c.function.arguments) },
          })),
        }
      : {}),
  };
}

import type { ChatMessage } from '../llm/index.js';
import type { Seen } from './seen.js';

/**
 * isErrorResult per message object, remembered (issue #28): every step reads every tool result of
 * its prompt again, and a result holding `"error"` was parsed whole each time. The content is
 * compared on every hit.
 */
const errorReplies = new WeakMap<ChatMessage, { content: string; error: boolean }>();

export function isErrorReply(m: ChatMessage & { content: string }): boolean {
  const hit = errorReplies.get(m);
  if (hit !== undefined && hit.content === m.content) return hit.error;
  const error = isErrorResult(m.content);
  errorReplies.set(m, { content: m.content, error });
  return error;
}

/**
 * Whether a tool result is an error the agent can read (`{"status": 401, "error": "…"}`, as
 * apptown answers a bad token, an unknown id or a missing argument).
 */
export function isErrorResult(content: string): boolean {
  if (!content.includes('"error"')) return false;
  try {
    const body = JSON.parse(content) as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
    const { status, error } = body as { status?: unknown; error?: unknown };
    return typeof status === 'number' && status >= 400 && typeof error === 'string';
  } catch {
    return false;
  }
}

/** Whether the agent's call in message `message` is answered, in view, with an error. */
export function refusedCall(seen: Seen, message: number): boolean {
  const reply = seen.messages[message + 1];
  return reply?.role === 'tool' && isErrorReply(reply);
}

import type { ChatMessage, ToolDef } from '../llm/index.js';
import { redactUrl, URL_IN_TEXT } from '../url-credentials.js';

/**
 * Defensive secret scrubbing for exports (ARCHITECTURE §7: keys never reach an export). The store
 * should never hold a key, but tool output can echo one (a login response, a pasted header), and a
 * training file is the kind of artefact that gets uploaded and shared. Each pattern replaces the
 * whole secret with `[REDACTED]`; the count goes into the export summary.
 */
const PATTERNS: readonly RegExp[] = [
  // `Authorization: …` to the end of the line, or `"Authorization": "…"` to the end of the value.
  /(["']?)authorization\1\s*:\s*(?:"[^"\n]*"|'[^'\n]*'|[^\n\r,}]*)/gi,
  /Bearer\s+\S+/g,
  // OpenAI-style keys (sk-…, sk-proj-…).
  /sk-[A-Za-z0-9_-]{8,}/g,
];

export const REDACTED = '[REDACTED]';

export type Scrubbed<T> = { value: T; count: number };

/** The text with every secret-looking span replaced, and how many spans were replaced. */
export function scrubText(text: string): Scrubbed<string> {
  let count = 0;
  // Credentials in URLs (user info, ?api_key=…) by the same rule as the store and the terminal.
  let out = text.includes('://')
    ? text.replace(URL_IN_TEXT, (url) => {
        const clean = redactUrl(url);
        if (clean !== url) count++;
        return clean;
      })
    : text;
  for (const re of PATTERNS) {
    out = out.replace(re, () => {
      count++;
      return REDACTED;
    });
  }
  return { value: out, count };
}

/** Scrubs every string a model would read or write: contents, tool-call arguments, tool docs. */
export function scrubMessages(messages: readonly ChatMessage[]): Scrubbed<ChatMessage[]> {
  let count = 0;
  const s = (text: string): string => {
    const r = scrubText(text);
    count += r.count;
    return r.value;
  };
  const value = messages.map((m): ChatMessage => {
    switch (m.role) {
      case 'assistant':
        return {
          role: 'assistant',
          content: m.content === null ? null : s(m.content),
          ...(m.tool_calls
            ? {
                tool_calls: m.tool_calls.map((c) => ({
                  id: c.id,
                  type: c.type,
                  function: { name: c.function.name, arguments: s(c.function.arguments) },
                })),
              }
            : {}),
        };
      case 'tool':
        return { role: 'tool', tool_call_id: m.tool_call_id, content: s(m.content) };
      default:
        return { role: m.role, content: s(m.content) };
    }
  });
  return { value, count };
}

/** Tool definitions with secrets scrubbed from every string in them (descriptions, enums, defaults). */
export function scrubTools(tools: readonly ToolDef[]): Scrubbed<ToolDef[]> {
  let count = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const r = scrubText(v);
      count += r.count;
      return r.value;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  const value = tools.map((t) => walk(t) as ToolDef);
  return { value, count };
}

/** Replaces every occurrence of each secret in `text` with `[REDACTED]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    // A very short "secret" (a placeholder like "x") would shred ordinary text.
    if (s.length >= 4) out = out.split(s).join('[REDACTED]');
  }
  return out;
}

/** Whether any secret occurs in the value's JSON (or string form). */
export function containsSecret(value: unknown, secrets: readonly string[]): boolean {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return secrets.some((s) => s.length >= 4 && text.includes(s));
}

/**
 * The message with every secret in its text and tool-call arguments redacted: an endpoint that
 * echoes its key (a debugging proxy, a model repeating its headers) must not carry it into the
 * store, reports, `rollout show` or exports (issue #31).
 */
export function redactMessage<
  M extends {
    content?: string | null;
    tool_calls?: { function: { name: string; arguments: string } }[];
  },
>(message: M, secrets: readonly string[]): M {
  if (!containsSecret(message, secrets)) return message;
  return {
    ...message,
    ...(typeof message.content === 'string' ? { content: redact(message.content, secrets) } : {}),
    ...(message.tool_calls
      ? {
          tool_calls: message.tool_calls.map((c) => ({
            ...c,
            function: { ...c.function, arguments: redact(c.function.arguments, secrets) },
          })),
        }
      : {}),
  };
}

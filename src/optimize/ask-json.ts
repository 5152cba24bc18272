import type { z } from 'zod';
import { cutReasonText } from '../llm/index.js';
import type { CallContext, ChatMessage, LlmClient } from '../llm/index.js';
import { parseJsonAnswer } from './analysis.js';

export type JsonAnswer<T> =
  | { ok: true; value: T; callIds: number[] }
  | { ok: false; reason: string; raw: string; callIds: number[] };

/**
 * Asks for a JSON answer matching `schema` (sent as `response_format: json_schema`). A malformed
 * answer is shown back to the model with what is wrong, up to `maxRetries` times (a different
 * request, so the call cache cannot return the same answer); then the failure is returned to be
 * recorded, never thrown. Provider errors propagate.
 */
export async function askJson<T>(
  llm: LlmClient,
  ctx: CallContext,
  messages: ChatMessage[],
  format: { name: string; schema: Record<string, unknown> },
  schema: z.ZodType<T>,
  maxRetries: number,
  seed?: number,
): Promise<JsonAnswer<T>> {
  const convo = [...messages];
  const callIds: number[] = [];
  let last = { reason: 'no answer', raw: '' };
  for (let attempt = 0; attempt <= maxRetries; attempt++) {
    const res = await llm.chat({ messages: convo, responseFormat: format, seed }, ctx);
    callIds.push(res.callId);
    const raw = res.message.content ?? '';
    // A cut answer is a failed attempt even when what arrived happens to parse.
    const parsed =
      res.finishReason !== undefined
        ? { ok: false as const, reason: cutReasonText(res.finishReason) }
        : parseJsonAnswer(raw, schema);
    if (parsed.ok) return { ok: true, value: parsed.value, callIds };
    last = { reason: parsed.reason, raw };
    convo.push(
      { role: 'assistant', content: raw },
      {
        role: 'user',
        content: `That answer cannot be used: ${parsed.reason}. Answer again with only one JSON object that matches the schema.`,
      },
    );
  }
  return { ok: false, ...last, callIds };
}

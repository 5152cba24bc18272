import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { BodyPool } from './body-pool.js';
import type { ProviderRequest } from './types.js';

/** A chat request in the OpenAI wire format (snake_case, tools only when there are some). */
export function toWireRequest(req: ProviderRequest): ChatCompletionCreateParamsNonStreaming {
  return {
    model: req.model,
    messages: req.messages,
    ...(req.tools && req.tools.length > 0 ? { tools: req.tools } : {}),
    ...(req.responseFormat
      ? {
          response_format: {
            type: 'json_schema' as const,
            json_schema: {
              name: req.responseFormat.name,
              schema: req.responseFormat.schema,
              strict: true,
            },
          },
        }
      : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    // The family decides (model-family.ts): reasoning models refuse `max_tokens`; several local
    // servers know only `max_tokens`.
    ...(req.maxTokens !== undefined
      ? req.limitParam === 'max_completion_tokens'
        ? { max_completion_tokens: req.maxTokens }
        : { max_tokens: req.maxTokens }
      : {}),
    ...(req.reasoningEffort !== undefined ? { reasoning_effort: req.reasoningEffort } : {}),
    ...(req.seed !== undefined ? { seed: req.seed } : {}),
  };
}

/**
 * UTF-8 JSON of each message and tool list, per object. A prompt repeats the trajectory's message
 * objects step after step and nothing changes a message once it is in a trajectory (the token
 * counter and the blob store rely on the same), so each is serialized and encoded once, not once
 * per step; a request body is then one copy of bytes already encoded (issue #16).
 */
const jsonOf = new WeakMap<object, Buffer>();

function cachedJson(value: object): Buffer {
  let bytes = jsonOf.get(value);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(value), 'utf8');
    jsonOf.set(value, bytes);
  }
  return bytes;
}

const COMMA = Buffer.from(',');

/**
 * The body of a chat request: `JSON.stringify(toWireRequest(req))` as UTF-8, byte for byte;
 * written into memory from `pool` when one is given.
 */
export function chatRequestBody(req: ProviderRequest, pool?: BodyPool): Buffer {
  const { model, messages, tools, ...rest } = toWireRequest(req);
  const parts: Buffer[] = [Buffer.from(`{"model":${JSON.stringify(model)},"messages":[`)];
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(cachedJson(messages[i]!));
  }
  if (tools !== undefined) parts.push(Buffer.from('],"tools":'), cachedJson(tools));
  else parts.push(Buffer.from(']'));
  const tail = JSON.stringify(rest);
  parts.push(Buffer.from(tail === '{}' ? '}' : `,${tail.slice(1)}`));
  if (!pool) return Buffer.concat(parts);
  let size = 0;
  for (const part of parts) size += part.length;
  const body = pool.take(size);
  let at = 0;
  for (const part of parts) at += part.copy(body, at);
  return body;
}

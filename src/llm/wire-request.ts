import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
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
    // `max_tokens`, not `max_completion_tokens`: several local servers only know the former.
    ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
    ...(req.seed !== undefined ? { seed: req.seed } : {}),
  };
}

/**
 * JSON text of each message and tool list, per object. A prompt repeats the trajectory's message
 * objects step after step and nothing changes a message once it is in a trajectory (the token
 * counter and the blob store rely on the same), so each is serialized once, not once per step.
 */
const jsonOf = new WeakMap<object, string>();

function cachedJson(value: object): string {
  let text = jsonOf.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    jsonOf.set(value, text);
  }
  return text;
}

/** `JSON.stringify(toWireRequest(req))`, byte for byte, serializing only new messages. */
export function chatRequestJson(req: ProviderRequest): string {
  const { model, messages, tools, ...rest } = toWireRequest(req);
  const parts = [`{"model":${JSON.stringify(model)},"messages":[`];
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) parts.push(',');
    parts.push(cachedJson(messages[i]!));
  }
  parts.push(']');
  if (tools !== undefined) parts.push(`,"tools":${cachedJson(tools)}`);
  const tail = JSON.stringify(rest);
  if (tail !== '{}') parts.push(`,${tail.slice(1)}`);
  else parts.push('}');
  return parts.join('');
}

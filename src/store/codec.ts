import { z } from 'zod';
import type { BlobStore } from './blobs.js';

/**
 * How trajectories, prompts and LLM calls are written as blob references. Every message is one
 * blob (its JSON text); a message list (a prompt, a step's observations) is one blob holding
 * the JSON list of its message keys, so the agent step and its llm_calls row share it. Records
 * keep their own key order, so reading one back and `JSON.stringify` give the written bytes.
 */

const KeySchema = z.string().regex(/^[0-9a-f]{32}$/);
const KeyListSchema = z.array(KeySchema);

/** Stores each message and the list of their keys; returns the key of the list. */
export function putMessages(blobs: BlobStore, messages: readonly unknown[]): string {
  return blobs.putJson(messages.map((m) => blobs.putJson(m)));
}

/** The JSON text of a stored message list, byte for byte as `JSON.stringify` wrote it. */
export function messagesJson(blobs: BlobStore, listKey: string): string {
  const keys = KeyListSchema.parse(blobs.getJson(listKey));
  return `[${keys.map((k) => blobs.get(k)).join(',')}]`;
}

/** Stores a message list given as its JSON text (the migration reads old rows as text). */
export function putMessagesJson(blobs: BlobStore, json: string): string {
  return putMessages(blobs, JSON.parse(json) as unknown[]);
}

/**
 * Schema v4–v6 forms, which the v4 migration still writes and v7 converts: a trajectory with
 * every turn's messages by key.
 */
export function putTrajectoryV4(blobs: BlobStore, trajectory: Record<string, unknown>): string {
  const t = trajectory as { system: string; task: string; turns: Record<string, unknown>[] };
  return JSON.stringify({
    ...t,
    system: blobs.put(t.system),
    task: blobs.put(t.task),
    turns: t.turns.map((turn) => ({
      ...turn,
      assistant: blobs.putJson(turn.assistant),
      observations: putMessages(blobs, turn.observations as unknown[]),
    })),
  });
}

/** Schema v4–v6: an LLM request with its messages and tool definitions by key, the rest inline. */
export function putRequestV4(blobs: BlobStore, request: Record<string, unknown>): string {
  const { messages, tools } = request as { messages: unknown[]; tools?: unknown };
  return JSON.stringify({
    ...request,
    messages: putMessages(blobs, messages),
    ...(Array.isArray(tools) ? { tools: blobs.putJson(tools) } : {}),
  });
}

/** Schema v4–v6: a provider response with its message by key. */
export function putResponseV4(blobs: BlobStore, response: Record<string, unknown>): string {
  return JSON.stringify({ ...response, message: blobs.putJson(response.message) });
}

/** The keys a message list refers to: its own and its messages'. */
export function messageListKeys(blobs: BlobStore, listKey: string): string[] {
  return [listKey, ...KeyListSchema.parse(blobs.getJson(listKey))];
}

// ---- schema v7: keys as 16-byte columns, requests and responses apart from their messages ----

/**
 * A blob key as a column value: its 16 bytes. A value that is not a key (a row an older acon
 * wrote by hand, a test's placeholder) is kept as it is: SQLite columns take either type.
 */
export function keyColumn(key: string): Buffer | string {
  return HEX_KEY.test(key) ? Buffer.from(key, 'hex') : key;
}

/** The blob key a column holds (see keyColumn). */
export function keyOf(value: unknown): string {
  if (Buffer.isBuffer(value)) return value.toString('hex');
  if (typeof value === 'string') return value;
  throw new TypeError(`a blob key column holds ${typeof value}`);
}

const HEX_KEY = /^(?:[0-9a-f]{32}|[0-9a-f]{64})$/;

/**
 * The value itself once the schema accepts it. Zod's output puts the schema's keys first, and a
 * record must be rebuilt in its own key order to give back the bytes that were written.
 */
export function checked<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  schema.parse(value);
  return value as z.infer<T>;
}

/**
 * An LLM request as stored in schema v7: the key of its message list (the agent step's prompt
 * blob), and the key of the rest of the request, a JSON blob with `messages: null` in place and
 * the tool list by key. Calls with the same model, sampling and tools share that blob.
 */
export function putRequestParts(
  blobs: BlobStore,
  request: Record<string, unknown>,
): { messages: string; rest: string } {
  const { messages, tools } = request as { messages: unknown[]; tools?: unknown };
  return {
    messages: putMessages(blobs, messages),
    rest: blobs.put(
      JSON.stringify({
        ...request,
        messages: null,
        ...(Array.isArray(tools) ? { tools: blobs.putJson(tools) } : {}),
      }),
    ),
  };
}

const RequestRestSchema = z.looseObject({ messages: z.null(), tools: KeySchema.optional() });

/** The request's JSON text as it was written (see putRequestParts). */
export function requestFromParts(blobs: BlobStore, messagesKey: string, restKey: string): string {
  const r = checked(RequestRestSchema, blobs.getJson(restKey));
  return JSON.stringify({
    ...r,
    messages: JSON.parse(messagesJson(blobs, messagesKey)) as unknown,
    ...(r.tools === undefined ? {} : { tools: blobs.getJson(r.tools) }),
  });
}

/** The keys a v7 request refers to: its message list, its messages, its rest and tools. */
export function requestPartKeys(blobs: BlobStore, messagesKey: string, restKey: string): string[] {
  const r = RequestRestSchema.parse(blobs.getJson(restKey));
  return [
    ...messageListKeys(blobs, messagesKey),
    restKey,
    ...(r.tools === undefined ? [] : [r.tools]),
  ];
}

/** Token counts as the llm_calls columns hold them. */
export type UsageColumns = {
  prompt_tokens: number;
  cached_tokens: number;
  completion_tokens: number;
};

/**
 * A provider response as stored in schema v7: its message by key, and null for the rest when
 * the response is exactly `{message, usage}` with the usage the row's token columns hold (every
 * response acon's providers return). Anything else keeps its JSON, message null in place.
 */
export function putResponseParts(
  blobs: BlobStore,
  response: Record<string, unknown>,
  usage: UsageColumns,
): { message: string; rest: string | null } {
  return { message: blobs.putJson(response.message), rest: responseRest(response, usage) };
}

/** What putResponseParts keeps of a response beside its message: null for a plain one. */
export function responseRest(
  response: Record<string, unknown>,
  usage: UsageColumns,
): string | null {
  return isPlainResponse(response, usage) ? null : JSON.stringify({ ...response, message: null });
}

function isPlainResponse(response: Record<string, unknown>, usage: UsageColumns): boolean {
  const keys = Object.keys(response);
  if (keys.length !== 2 || keys[0] !== 'message' || keys[1] !== 'usage') return false;
  const u = response.usage as Record<string, unknown> | null;
  if (typeof u !== 'object' || u === null) return false;
  const uk = Object.keys(u);
  return (
    uk.length === 3 &&
    uk[0] === 'promptTokens' &&
    uk[1] === 'cachedPromptTokens' &&
    uk[2] === 'completionTokens' &&
    u.promptTokens === usage.prompt_tokens &&
    u.cachedPromptTokens === usage.cached_tokens &&
    u.completionTokens === usage.completion_tokens
  );
}

/** The response's JSON text as it was written (see putResponseParts). */
export function responseFromParts(
  blobs: BlobStore,
  messageKey: string,
  rest: string | null,
  usage: UsageColumns,
): string {
  const message = blobs.getJson(messageKey);
  if (rest !== null) return JSON.stringify({ ...(JSON.parse(rest) as object), message });
  return JSON.stringify({
    message,
    usage: {
      promptTokens: usage.prompt_tokens,
      cachedPromptTokens: usage.cached_tokens,
      completionTokens: usage.completion_tokens,
    },
  });
}

/** A step's message keys, by position, for trajectories whose turns repeat them. */
export type StepKeys = { assistant: string; observations: string };

/**
 * A trajectory as stored in schema v7: like putTrajectory, but a turn whose assistant message
 * and observations are those of the agent step at the same position is written as 0. Most turns
 * are (AppWorld's cut answers are the exception), and 64 hex characters a turn was a large
 * share of a long rollout's row.
 */
export function putTrajectory(
  blobs: BlobStore,
  trajectory: Record<string, unknown>,
  steps: readonly StepKeys[],
): string {
  const t = trajectory as { system: string; task: string; turns: Record<string, unknown>[] };
  const system = blobs.put(t.system);
  const task = blobs.put(t.task);
  const turns = t.turns.map((turn) => ({
    ...turn,
    assistant: blobs.putJson(turn.assistant),
    observations: putMessages(blobs, turn.observations as unknown[]),
  }));
  return JSON.stringify({ ...t, system, task, turns: compactTurns(turns, steps) });
}

/** Turn references with 0 for each turn that is exactly the agent step at its position. */
export function compactTurns(
  turns: readonly Record<string, unknown>[],
  steps: readonly StepKeys[],
): (0 | Record<string, unknown>)[] {
  return turns.map((turn, i) => {
    const keys = Object.keys(turn);
    const plain = keys.length === 2 && keys[0] === 'assistant' && keys[1] === 'observations';
    const step = steps[i];
    const same = step?.assistant === turn.assistant && step?.observations === turn.observations;
    return plain && same ? 0 : turn;
  });
}

const TrajectoryRefSchema = z.looseObject({
  system: KeySchema,
  task: KeySchema,
  turns: z.array(
    z.union([z.literal(0), z.looseObject({ assistant: KeySchema, observations: KeySchema })]),
  ),
});

/** The trajectory's JSON text as it was written; `steps` gives the keys of the turns written 0. */
export function trajectoryJson(
  blobs: BlobStore,
  ref: string,
  steps: () => readonly StepKeys[],
): string {
  const t = checked(TrajectoryRefSchema, JSON.parse(ref));
  const stepKeys = t.turns.includes(0) ? steps() : [];
  return JSON.stringify({
    ...t,
    system: blobs.get(t.system),
    task: blobs.get(t.task),
    turns: t.turns.map((turn, i) => {
      const keys = turn === 0 ? stepKeys[i] : turn;
      if (keys === undefined) throw new Error(`turn ${i} refers to a step the rollout lacks`);
      return {
        ...(turn === 0 ? {} : turn),
        assistant: JSON.parse(blobs.get(keys.assistant)) as unknown,
        observations: JSON.parse(messagesJson(blobs, keys.observations)) as unknown,
      };
    }),
  });
}

/** The keys a v7 trajectory refers to beyond its steps' (a turn written 0 has only those). */
export function trajectoryKeys(blobs: BlobStore, ref: string): string[] {
  const t = TrajectoryRefSchema.parse(JSON.parse(ref));
  return [
    t.system,
    t.task,
    ...t.turns.flatMap((turn) =>
      turn === 0 ? [] : [turn.assistant, ...messageListKeys(blobs, turn.observations)],
    ),
  ];
}

/** The system prompt and task of a v7 trajectory, without reading its turns. */
export function trajectoryHead(blobs: BlobStore, ref: string): { system: string; task: string } {
  const t = z.looseObject({ system: KeySchema, task: KeySchema }).parse(JSON.parse(ref));
  return { system: blobs.get(t.system), task: blobs.get(t.task) };
}

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

/** A trajectory as stored: system and task texts and every turn's messages by key. */
export function putTrajectory(blobs: BlobStore, trajectory: Record<string, unknown>): string {
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

const TrajectoryRefSchema = z.looseObject({
  system: KeySchema,
  task: KeySchema,
  turns: z.array(z.looseObject({ assistant: KeySchema, observations: KeySchema })),
});

/** The trajectory's JSON text as it was written (parse it with TrajectorySchema). */
export function trajectoryJson(blobs: BlobStore, ref: string): string {
  const t = TrajectoryRefSchema.parse(JSON.parse(ref));
  return JSON.stringify({
    ...t,
    system: blobs.get(t.system),
    task: blobs.get(t.task),
    turns: t.turns.map((turn) => ({
      ...turn,
      assistant: JSON.parse(blobs.get(turn.assistant)) as unknown,
      observations: JSON.parse(messagesJson(blobs, turn.observations)) as unknown,
    })),
  });
}

/** The system prompt and task of a stored trajectory, without reading its turns. */
export function trajectoryHead(blobs: BlobStore, ref: string): { system: string; task: string } {
  const t = TrajectoryRefSchema.parse(JSON.parse(ref));
  return { system: blobs.get(t.system), task: blobs.get(t.task) };
}

/** An LLM request as stored: its messages and tool definitions by key, the rest inline. */
export function putRequest(blobs: BlobStore, request: Record<string, unknown>): string {
  const { messages, tools } = request as { messages: unknown[]; tools?: unknown };
  return JSON.stringify({
    ...request,
    messages: putMessages(blobs, messages),
    ...(Array.isArray(tools) ? { tools: blobs.putJson(tools) } : {}),
  });
}

const RequestRefSchema = z.looseObject({ messages: KeySchema, tools: KeySchema.optional() });

/** The request's JSON text as it was written. */
export function requestJson(blobs: BlobStore, ref: string): string {
  const r = RequestRefSchema.parse(JSON.parse(ref));
  return JSON.stringify({
    ...r,
    messages: JSON.parse(messagesJson(blobs, r.messages)) as unknown,
    ...(r.tools === undefined ? {} : { tools: blobs.getJson(r.tools) }),
  });
}

/** A provider response as stored: its message by key (an agent step's assistant blob). */
export function putResponse(blobs: BlobStore, response: Record<string, unknown>): string {
  return JSON.stringify({ ...response, message: blobs.putJson(response.message) });
}

const ResponseRefSchema = z.looseObject({ message: KeySchema });

export function responseJson(blobs: BlobStore, ref: string): string {
  const r = ResponseRefSchema.parse(JSON.parse(ref));
  return JSON.stringify({ ...r, message: blobs.getJson(r.message) });
}

/** The keys a message list refers to: its own and its messages'. */
export function messageListKeys(blobs: BlobStore, listKey: string): string[] {
  return [listKey, ...KeyListSchema.parse(blobs.getJson(listKey))];
}

/** Every key a stored trajectory refers to. */
export function trajectoryKeys(blobs: BlobStore, ref: string): string[] {
  const t = TrajectoryRefSchema.parse(JSON.parse(ref));
  return [
    t.system,
    t.task,
    ...t.turns.flatMap((turn) => [turn.assistant, ...messageListKeys(blobs, turn.observations)]),
  ];
}

/** Every key a stored request refers to. */
export function requestKeys(blobs: BlobStore, ref: string): string[] {
  const r = RequestRefSchema.parse(JSON.parse(ref));
  return [...messageListKeys(blobs, r.messages), ...(r.tools === undefined ? [] : [r.tools])];
}

export function responseKeys(ref: string): string[] {
  return [ResponseRefSchema.parse(JSON.parse(ref)).message];
}

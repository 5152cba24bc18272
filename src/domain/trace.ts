import { z } from 'zod';
import { ChatMessageSchema } from './message.js';

/**
 * A recorded conversation of the user's own agent (`acon optimize --traces`): the messages in
 * the OpenAI chat format as the agent saw them with full context, its tools, and whether it
 * ended well. Failed conversations are kept (they count in the plan) but never serve as a
 * full-context reference.
 */
export const TraceSchema = z.object({
  /** Stable id: the line's own `id`, else a digest of its messages; splits hash it. */
  id: z.string().min(1),
  messages: z.array(ChatMessageSchema).min(1),
  /** Tool definitions in the OpenAI `tools` format, as sent with the conversation. */
  tools: z.array(z.record(z.string(), z.unknown())).default([]),
  outcome: z.enum(['success', 'failure', 'unknown']).default('unknown'),
  /** The benchmark task it ran, when known (a stored run's rollouts; `metadata.task_id` of a line). */
  taskId: z.string().optional(),
  /** Where it came from: `file.jsonl:12` or `run-…/raw/task-3`. */
  source: z.string(),
});
export type Trace = z.infer<typeof TraceSchema>;

import { z } from 'zod';
import { AssistantMessageSchema, ChatMessageSchema, ToolDefSchema } from '../llm/index.js';
import type { RunStore } from '../store/index.js';

export type { CallRow, GuidelineFilter, RolloutFilter } from '../store/index.js';

/** What the export reads from the run store. */
export type ExportSource = Pick<
  RunStore,
  | 'path'
  | 'getRun'
  | 'listRuns'
  | 'latestRunWithRollouts'
  | 'runConditions'
  | 'exportTasks'
  | 'exportCalls'
>;

/** The recorded request as far as an export reads it (extra keys such as model are ignored). */
export const RecordedRequestSchema = z.object({
  messages: z.array(ChatMessageSchema).min(1),
  tools: z.array(ToolDefSchema).optional(),
});
export const RecordedResponseSchema = z.object({ message: AssistantMessageSchema });

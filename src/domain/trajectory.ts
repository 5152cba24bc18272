import { z } from 'zod';
import { AssistantMessageSchema, ChatMessageSchema } from './message.js';

/**
 * One agent turn T_i = (reasoning r_i + action a_i in `assistant`, observation o_i in
 * `observations`), as in seed 001 §3.1. A turn is the unit every context strategy keeps or
 * drops whole, so a tool call is never separated from its result.
 */
export const TurnSchema = z.object({
  assistant: AssistantMessageSchema,
  /** Tool messages answering each tool call, or one user message for code-writing agents. */
  observations: z.array(ChatMessageSchema),
});
export type Turn = z.infer<typeof TurnSchema>;

/** The full, never-compressed trajectory: strategies only change the view of it. */
export const TrajectorySchema = z.object({
  system: z.string(),
  task: z.string(),
  turns: z.array(TurnSchema),
});
export type Trajectory = z.infer<typeof TrajectorySchema>;

import type { AssistantMessage } from '../../llm/index.js';
import type { Episode, ReferencePlan } from '../types.js';

/**
 * Driving an episode with tool calls from code: the reference plan as the assistant messages
 * a perfect tool-calling agent would send. Tests, the observation statistics and the task
 * generator replay tasks through the adapter with these, so they see exactly what an agent sees.
 */

export function toolCallMessage(id: string, name: string, args: unknown): AssistantMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id,
        type: 'function',
        function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
      },
    ],
  };
}

export function planToMessages(plan: ReferencePlan): AssistantMessage[] {
  return plan.steps.map((step, i) => toolCallMessage(`call_${i + 1}`, step.tool, step.args));
}

export type RunPlanOptions = {
  /** Runs just before the complete_task call, e.g. to make an extra change. */
  beforeComplete?: () => Promise<void>;
  /** Hand in this answer instead of the plan's. */
  answer?: string | null;
};

/** Send every step of `plan` to `episode`; returns the observation texts in order. */
export async function runPlan(
  episode: Episode,
  plan: ReferencePlan,
  opts: RunPlanOptions = {},
): Promise<string[]> {
  const observations: string[] = [];
  for (const [i, step] of plan.steps.entries()) {
    let args = step.args;
    if (step.tool === 'complete_task') {
      await opts.beforeComplete?.();
      if (opts.answer !== undefined) args = { ...args, answer: opts.answer };
    }
    const { messages } = await episode.act(toolCallMessage(`call_${i + 1}`, step.tool, args));
    for (const m of messages) if (m.role === 'tool') observations.push(m.content);
  }
  return observations;
}

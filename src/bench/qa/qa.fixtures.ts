import type { ReferencePlan } from '../types.js';
import { planStepCall } from '../plan-call.fixtures.js';
import type { QaEpisode } from './episode.js';

/**
 * Test fixture (not built into dist): a reference plan played step by step as the assistant's
 * tool calls, with what each step observed, for the tests of this folder.
 */
export async function replayPlan(
  episode: QaEpisode,
  plan: ReferencePlan,
): Promise<{ tool: string; observations: string[] }[]> {
  const steps: { tool: string; observations: string[] }[] = [];
  for (const [i, step] of plan.steps.entries()) {
    const { messages } = await episode.act(planStepCall(step, `c${i}`));
    steps.push({ tool: step.tool, observations: messages.map((m) => m.content ?? '') });
  }
  return steps;
}

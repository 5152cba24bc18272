import type { AssistantMessage } from '../domain/index.js';
import type { ReferenceStep } from './types.js';

/**
 * Test fixture (not built into dist): a reference plan's step as the assistant message that
 * calls it, for the tests and scripts that play a plan step by step against an episode.
 */
export function planStepCall(step: ReferenceStep, id: string): AssistantMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id,
        type: 'function',
        function: { name: step.tool, arguments: JSON.stringify(step.args) },
      },
    ],
  };
}

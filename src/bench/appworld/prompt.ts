import { renderPrompt } from '../../prompts/index.js';
import type { InitializeOutput } from './protocol.js';

/**
 * The AppWorld agent's system prompt (src/prompts/appworld-agent.system.txt, our own words): the
 * rules of the reference ReAct agents and a worked demonstration. The agent acts by writing
 * Python that calls `apis.<app>.<api>(...)` in AppWorld's stateful shell (ARCHITECTURE §5), the
 * code-agent setting of the ACON paper (seed 001).
 */
export function appWorldSystemPrompt(): string {
  return renderPrompt('appworld-agent.system.txt', {});
}

/** The first user message: the instruction, who the supervisor is, and the world's date. */
export function renderFirstUserMessage(task: InitializeOutput): string {
  const s = task.supervisor;
  return [
    `Task: ${task.instruction}`,
    '',
    'Your supervisor (the person you work for):',
    `- Name: ${s.first_name} ${s.last_name}`,
    `- Email: ${s.email}`,
    `- Phone number: ${s.phone_number}`,
    '',
    `Current date and time: ${task.datetime}`,
  ].join('\n');
}

/** The observation for a message without a Python block; the turn costs a step, nothing runs. */
export const NO_CODE_BLOCK_MESSAGE =
  'No code was run: your message has no ```python code block. Write the next step as Python code in one fenced ```python block, and call apis.supervisor.complete_task(...) when the task is done.';

/** The answer to a tool call: this agent has no tools, it writes code. */
export const NO_TOOLS_MESSAGE =
  'There are no tools to call here. Write Python code in one fenced ```python block instead.';

/**
 * The observation for what the code printed, notes (if any) after it. AppWorld returns stdout
 * as printed, ending in a newline; the observation drops that last line break.
 */
export function renderOutput(output: string, notes: readonly string[] = []): string {
  const text = output.replace(/\r?\n$/, '');
  const printed = text === '' ? '(nothing was printed; use print(...) to see values)' : text;
  return [`Output:\n${printed}`, ...notes].join('\n\n');
}

export function ignoredBlocksNote(count: number): string {
  return `Note: only the first code block was run; ${count} more ${count === 1 ? 'was' : 'were'} ignored. Write one code block per turn.`;
}

/** Added when AppWorld's own time limit stopped the code (the step is recorded as timed out). */
export const TIMED_OUT_NOTE =
  'Note: this code ran out of time and was stopped. Do less per step (fewer calls, smaller pages) and try again.';

/** Added when the server never answered the code: the episode ends there. */
export const SERVER_STUCK_NOTE =
  'Note: the environment did not answer in time and this episode stops here.';

export const REINITIALIZED_NOTE =
  "Note: the AppWorld server had lost this task's world and started it again, so changes made by earlier code are gone and variables are undefined.";

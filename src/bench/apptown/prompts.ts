import type { ToolDef } from '../../llm/index.js';
import { APP_NAMES } from './apps/index.js';

/** The agent's standing instructions for apptown (our own words; ARCHITECTURE §5). */
export const SYSTEM_PROMPT = `You are an assistant who completes everyday tasks for one person, your supervisor, by using the apps on their phone and computer through APIs.

Apps: ${APP_NAMES.join(', ')}.

How to work:
- Call APIs with the call_api tool: {"app": "...", "api": "...", "args": {...}}. Every response is JSON; errors look like {"status": 404, "error": "..."}.
- Discover what exists with the api_docs app: show_app_descriptions, show_api_descriptions (args: app_name), show_api_doc (args: app_name, api_name) for parameters and response shapes.
- Most apps need a login first: get the supervisor's passwords from supervisor.show_account_passwords, call <app>.login with username = the supervisor's email, then pass the returned access_token in the args of every other call to that app.
- List APIs return one page at a time (page_index from 0, page_limit up to 20); look at has_more and fetch further pages when what you need may be on them.
- Use ids, emails and other values exactly as the APIs return them. Do only what the task asks: do not create, change or delete anything else.
- When done, call complete_task. If the task asks a question, pass just the answer (a name, number or date; several items comma-separated), with no sentence around it; otherwise pass null. Use status "fail" only if the task cannot be done.`;

export function firstUserMessage(
  supervisor: { name: string; email: string; phone_number: string },
  instruction: string,
): string {
  return `I am ${supervisor.name} (email ${supervisor.email}, phone ${supervisor.phone_number}).

Task: ${instruction}`;
}

export const NO_TOOL_CALL_MESSAGE =
  'No tool call found. Act with call_api (app, api, args) or finish with complete_task (answer, status).';

export const TOOLS: ToolDef[] = [
  {
    type: 'function',
    function: {
      name: 'call_api',
      description:
        'Call one API of one app. Use the api_docs app to find APIs and their parameters.',
      parameters: {
        type: 'object',
        properties: {
          app: { type: 'string', enum: APP_NAMES, description: 'Name of the app.' },
          api: { type: 'string', description: 'Name of the API, e.g. "login".' },
          args: {
            type: 'object',
            description: 'Named arguments of the API, including access_token when it needs one.',
            additionalProperties: true,
          },
        },
        required: ['app', 'api'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'complete_task',
      description: 'Finish the task, with the answer if the task asks a question.',
      parameters: {
        type: 'object',
        properties: {
          answer: {
            type: ['string', 'null'],
            description: 'Just the answer (comma-separated for several items), or null.',
          },
          status: {
            type: 'string',
            enum: ['success', 'fail'],
            description: '"fail" only if the task cannot be done.',
          },
        },
        required: ['answer', 'status'],
        additionalProperties: false,
      },
    },
  },
];

import { z } from 'zod';
import type { AssistantMessage, ToolCall } from '../../llm/index.js';
import { answerToolCalls } from '../tool-call-answers.js';
import type { ActResult } from '../../agent/index.js';
import type { Episode, TaskInfo } from '../types.js';
import type { Evaluation } from '../../domain/index.js';
import { evaluateState, type ResolvedEvaluation } from './evaluate.js';
import { NO_TOOL_CALL_MESSAGE, SYSTEM_PROMPT, TOOLS, firstUserMessage } from './prompts.js';
import { supervisorFacts } from './replay.js';
import { callApi, renderResponse, type ApiResponse } from './server.js';
import type { World } from './world.js';

/** Some models send `args` as a JSON string inside the JSON; accept that too. */
const ArgsObjectSchema = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}, z.record(z.string(), z.unknown()).nullish());

const CallApiArgsSchema = z.strictObject({
  app: z.string(),
  api: z.string(),
  args: ArgsObjectSchema,
});
const CompleteTaskArgsSchema = z.strictObject({
  answer: z.union([z.string(), z.number(), z.null()]).optional(),
  status: z.enum(['success', 'fail']).optional(),
});

function toolError(status: number, error: string): string {
  return renderResponse({ status, body: { status, error } });
}

function badArgs(tool: string, err: z.ZodError): string {
  const what = err.issues
    .map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`)
    .join('; ');
  return toolError(422, `bad arguments for ${tool}: ${what}`);
}

/** One attempt at one apptown task in a fresh world; the agent acts only through tool calls. */
export class ApptownEpisode implements Episode {
  readonly systemPrompt = SYSTEM_PROMPT;
  readonly tools = TOOLS;
  readonly firstUserMessage: string;
  private done = false;

  constructor(
    readonly task: TaskInfo,
    private readonly world: World,
    private readonly spec: ResolvedEvaluation,
  ) {
    this.firstUserMessage = firstUserMessage(supervisorFacts(world), task.instruction);
  }

  async act(message: AssistantMessage): Promise<ActResult> {
    const messages = answerToolCalls(message, (call) => this.run(call), NO_TOOL_CALL_MESSAGE);
    return { messages, done: this.done };
  }

  async evaluate(): Promise<Evaluation> {
    const { world } = this;
    return evaluateState(
      this.spec,
      world.initial,
      world.data,
      world.completion,
      world.touchedTables(),
    );
  }

  async close(): Promise<void> {}

  /** Never throws: whatever the model sent becomes an observation it can react to. */
  private run(call: ToolCall): string {
    if (this.done)
      return toolError(409, 'The task is already complete; no further actions are accepted.');
    let raw: unknown;
    try {
      raw = JSON.parse(call.function.arguments.trim() === '' ? '{}' : call.function.arguments);
    } catch (err) {
      return toolError(
        400,
        `the tool call arguments are not valid JSON (${(err as Error).message}); send one JSON object, e.g. {"app": "api_docs", "api": "show_app_descriptions", "args": {}}`,
      );
    }
    switch (call.function.name) {
      case 'call_api': {
        const parsed = CallApiArgsSchema.safeParse(raw);
        if (!parsed.success) return badArgs('call_api', parsed.error);
        const { app, api, args } = parsed.data;
        return this.respond(app, api, callApi(this.world, app, api, args ?? {}));
      }
      case 'complete_task': {
        const parsed = CompleteTaskArgsSchema.safeParse(raw);
        if (!parsed.success) return badArgs('complete_task', parsed.error);
        return this.respond(
          'supervisor',
          'complete_task',
          callApi(this.world, 'supervisor', 'complete_task', parsed.data),
        );
      }
      default:
        return toolError(
          404,
          `unknown tool "${call.function.name}"; the tools are call_api and complete_task`,
        );
    }
  }

  private respond(app: string, api: string, res: ApiResponse): string {
    if (app === 'supervisor' && api === 'complete_task' && res.status === 200) this.done = true;
    return renderResponse(res);
  }
}

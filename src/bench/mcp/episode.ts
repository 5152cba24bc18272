import { rm } from 'node:fs/promises';
import type { AssistantMessage, ChatMessage, ToolCall, ToolDef } from '../../llm/index.js';
import type { Evaluation } from '../../domain/index.js';
import type { ActResult } from '../../agent/index.js';
import type { Episode, TaskInfo } from '../types.js';
import type { McpConnection, McpServerError } from './connection.js';
import { evaluateMcp } from './evaluate.js';
import type { EvaluationSpec } from './task-schema.js';
import {
  COMPLETE_TASK,
  COMPLETE_TASK_TOOL,
  renderResult,
  splitToolName,
  toToolDef,
} from './tools.js';

export const NO_TOOL_CALL_MESSAGE = `No tool call found. Act with one of the tools, or finish with ${COMPLETE_TASK}.`;

export function systemPrompt(servers: readonly string[]): string {
  return `You are an assistant who completes tasks by calling tools. The tools come from these MCP servers: ${servers.join(', ')}; each tool's name starts with its server's name and two underscores (e.g. ${servers[0]}__…).

How to work:
- Call one tool at a time and read its result before the next call.
- Use names, paths and other values exactly as the tools return them. Do only what the task asks.
- When done, call ${COMPLETE_TASK}. If the task asks a question, pass just the answer (a name, number or date; several items comma-separated), with no sentence around it; otherwise pass null.`;
}

/** A step whose server stopped or did not answer: the rollout ends there (issue 26). */
export type FailedStep = { step: number; server: string; tool: string; error: string };

/**
 * One attempt at one MCP task: a fresh workdir and graph, one session per server, closed (and
 * the workdir removed) by `close`. A server that stops or hangs ends the episode with a failed
 * step naming it and its stderr tail; the evaluation then sees whatever state was reached.
 */
export class McpEpisode implements Episode {
  readonly systemPrompt: string;
  readonly firstUserMessage: string;
  readonly tools: ToolDef[];
  private answer: string | null = null;
  private done = false;
  private steps = 0;
  private readonly failed: FailedStep[] = [];

  constructor(
    readonly task: TaskInfo,
    private readonly connections: ReadonlyMap<string, McpConnection>,
    private readonly spec: EvaluationSpec,
    private readonly where: { tmp: string; workdir: string; memoryFile: string },
  ) {
    this.systemPrompt = systemPrompt([...connections.keys()]);
    this.firstUserMessage = `Task: ${task.instruction}`;
    this.tools = [
      ...[...connections].flatMap(([name, c]) => c.tools.map((t) => toToolDef(name, t))),
      COMPLETE_TASK_TOOL,
    ];
  }

  async act(message: AssistantMessage): Promise<ActResult> {
    const step = this.steps++;
    const calls = message.tool_calls ?? [];
    if (calls.length === 0)
      return { messages: [{ role: 'user', content: NO_TOOL_CALL_MESSAGE }], done: this.done };
    const messages: ChatMessage[] = [];
    const before = this.failed.length;
    // One call after another: the agent reads each result before the next (system prompt).
    for (const call of calls) {
      messages.push({ role: 'tool', tool_call_id: call.id, content: await this.run(call, step) });
    }
    const failure = this.failed[before];
    return failure ? { messages, done: true, error: failure.error } : { messages, done: this.done };
  }

  async evaluate(): Promise<Evaluation> {
    const evaluation = await evaluateMcp(this.spec, this.answer, this.where);
    for (const f of this.failed) {
      evaluation.details.push({ name: `server ${f.server}`, passed: false, detail: f.error });
    }
    if (this.failed.length > 0) evaluation.success = false;
    return evaluation;
  }

  meta(): Record<string, unknown> {
    return { servers: [...this.connections.keys()], failedSteps: this.failed };
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    await rm(this.where.tmp, { recursive: true, force: true });
  }

  /** Never throws: whatever the model sent becomes an observation it can react to. */
  private async run(call: ToolCall, step: number): Promise<string> {
    if (this.done) return 'Error: the task is over; no further calls are accepted.';
    let args: Record<string, unknown>;
    try {
      const raw = JSON.parse(
        call.function.arguments.trim() === '' ? '{}' : call.function.arguments,
      ) as unknown;
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
        throw new Error('not an object');
      args = raw as Record<string, unknown>;
    } catch (err) {
      return `Error: the tool call arguments are not a JSON object (${(err as Error).message}); send e.g. {"path": "notes.md"}`;
    }
    const name = call.function.name;
    if (name === COMPLETE_TASK) {
      const answer = args.answer;
      this.answer = answer === null || answer === undefined ? null : String(answer);
      this.done = true;
      return 'Task completed.';
    }
    const split = splitToolName(name);
    const conn = split && this.connections.get(split.server);
    const tool =
      conn &&
      split &&
      conn.tools.find(
        (t) => t.name === split.tool || t.name.replace(/[^A-Za-z0-9_-]/g, '_') === split.tool,
      );
    if (!conn || !tool) {
      return `Error: unknown tool "${name}"; the tools are ${this.tools.map((t) => t.function.name).join(', ')}`;
    }
    const outcome = await conn.call(tool.name, args);
    if (outcome.kind === 'result') return renderResult(outcome.result);
    return this.fail(step, name, outcome.error);
  }

  private fail(step: number, tool: string, error: McpServerError): string {
    this.failed.push({ step, server: error.server, tool, error: error.message });
    this.done = true;
    return `Error: ${error.message}\nThe task cannot go on without this server.`;
  }
}

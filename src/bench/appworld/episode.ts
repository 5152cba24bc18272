import { BenchmarkError } from '../../errors.js';
import type { AssistantMessage, ChatMessage, ToolDef } from '../../llm/index.js';
import type { ActResult } from '../../agent/index.js';
import type { Episode, TaskInfo } from '../types.js';
import type { Evaluation } from '../../domain/index.js';
import type { AppWorldClient } from './client.js';
import { extractCode } from './code-block.js';
import type { EvaluateOutput, InitializeOutput, Requirement } from './protocol.js';
import {
  NO_CODE_BLOCK_MESSAGE,
  NO_TOOLS_MESSAGE,
  REINITIALIZED_NOTE,
  SERVER_STUCK_NOTE,
  TIMED_OUT_NOTE,
  appWorldSystemPrompt,
  ignoredBlocksNote,
  renderFirstUserMessage,
  renderOutput,
} from './prompt.js';

export type EpisodeHooks = {
  /** Called with each evaluation, so the benchmark learns the task's difficulty. */
  onEvaluated?(output: EvaluateOutput): void;
  /** Called once, when the episode closes (returns its server to the pool). */
  onClosed?(): void;
};

/**
 * One AppWorld task in a world initialized on one server. The agent writes Python; each
 * `act` runs the message's first Python block (or its bare code) with `/execute` and answers
 * with what it printed. The message enters the history only up to the end of that block.
 */
export class AppWorldEpisode implements Episode {
  readonly systemPrompt = appWorldSystemPrompt();
  readonly firstUserMessage: string;
  /** None: the AppWorld agent writes code instead of calling tools. */
  readonly tools: ToolDef[] = [];
  private closed = false;
  /** Why the episode had to stop: the server still runs code we stopped waiting for. */
  private stuck: string | null = null;
  private step = 0;
  private readonly timedOutSteps: number[] = [];

  constructor(
    readonly task: TaskInfo,
    readonly client: AppWorldClient,
    init: InitializeOutput,
    /** Where AppWorld keeps this episode's outputs: `experiments/outputs/<name>/tasks/<id>/`. */
    readonly experimentName: string,
    private readonly hooks: EpisodeHooks = {},
  ) {
    this.firstUserMessage = renderFirstUserMessage(init);
  }

  /** Stored with the rollout: the experiment name, and the steps AppWorld stopped for time. */
  meta(): Record<string, unknown> {
    return { experiment_name: this.experimentName, timed_out_steps: [...this.timedOutSteps] };
  }

  async act(message: AssistantMessage): Promise<ActResult> {
    this.assertOpen('act');
    const step = this.step++;
    // A tool call needs a tool message answering it, or the next chat request is invalid.
    const toolReplies: ChatMessage[] = (message.tool_calls ?? []).map((call) => ({
      role: 'tool',
      tool_call_id: call.id,
      content: NO_TOOLS_MESSAGE,
    }));
    const extracted = extractCode(message.content);
    if (!extracted) {
      return {
        messages: [...toolReplies, { role: 'user', content: NO_CODE_BLOCK_MESSAGE }],
        done: false,
      };
    }
    const result = await this.client.execute(this.task.id, extracted.code);
    if (result.serverStuck) {
      this.timedOutSteps.push(step);
      this.stuck = result.output;
      const observation = renderOutput(result.output, [SERVER_STUCK_NOTE]);
      return {
        messages: [...toolReplies, { role: 'user', content: observation }],
        done: false,
        error: result.output,
      };
    }
    const notes: string[] = [];
    if (result.timedOut) {
      this.timedOutSteps.push(step);
      notes.push(TIMED_OUT_NOTE);
    }
    if (result.reinitialized) notes.push(REINITIALIZED_NOTE);
    if (extracted.ignoredBlocks > 0) notes.push(ignoredBlocksNote(extracted.ignoredBlocks));
    const done = await this.client.taskCompleted(this.task.id);
    const messages: ChatMessage[] = [
      ...toolReplies,
      { role: 'user', content: renderOutput(result.output, notes) },
    ];
    return extracted.kept === null
      ? { messages, done }
      : { messages, done, assistant: { ...message, content: extracted.kept } };
  }

  async evaluate(): Promise<Evaluation> {
    this.assertOpen('evaluate');
    if (this.stuck !== null) {
      // The server answers nothing until the hung code ends: the task cannot be evaluated.
      const detail = `not evaluated: ${this.stuck}`;
      return { success: false, score: 0, details: [{ name: 'evaluation', passed: false, detail }] };
    }
    const output = await this.client.evaluate(this.task.id);
    this.hooks.onEvaluated?.(output);
    return toEvaluation(output);
  }

  /** Closes the world on the server and frees the server; safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.client.close(this.task.id);
    } finally {
      this.hooks.onClosed?.();
    }
  }

  private assertOpen(what: string): void {
    if (this.closed) {
      throw new BenchmarkError(
        `AppWorld episode of task ${this.task.id} is closed; cannot ${what}`,
      );
    }
  }
}

/**
 * AppWorld's test report as an Evaluation: one detail per requirement, passes first, each
 * failure with AppWorld's trace (the failing check and its assertion message).
 */
export function toEvaluation(output: EvaluateOutput): Evaluation {
  const details = [
    ...output.passes.map((r) => requirementDetail(r, true)),
    ...output.failures.map((r) => requirementDetail(r, false)),
  ];
  const total = Math.max(output.num_tests, details.length);
  const score = total > 0 ? output.passes.length / total : output.success ? 1 : 0;
  return { success: output.success, score, details };
}

function requirementDetail(r: Requirement, passed: boolean): Evaluation['details'][number] {
  if (typeof r === 'string') return { name: r, passed, detail: passed ? '' : 'failed' };
  const name = r.requirement ?? JSON.stringify(r);
  if (passed) return { name, passed, detail: r.label ?? '' };
  return { name, passed, detail: r.trace ?? r.label ?? 'failed' };
}

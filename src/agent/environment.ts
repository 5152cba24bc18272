import type { Evaluation } from '../domain/index.js';
import type { AssistantMessage, ChatMessage, ToolDef } from '../llm/index.js';

export type ActResult = {
  /** The observation messages: one tool message per tool call, or a user message for code agents. */
  messages: ChatMessage[];
  /** True once the agent finished the task (complete_task was called). */
  done: boolean;
  /**
   * The agent's message as it enters the history, when the benchmark keeps less than was said
   * (AppWorld keeps a message only up to the end of the code block it ran).
   */
  assistant?: AssistantMessage;
  /**
   * The environment failed at this step (an MCP server stopped or hung): the rollout stops with
   * `stopReason: 'error'` and this message, naming what failed.
   */
  error?: string;
};

/**
 * What the agent loop drives: one attempt at one task. A benchmark's `Episode`
 * (src/bench/types.ts) is one; the loop needs no more of it than this.
 */
export interface AgentEnvironment {
  readonly systemPrompt: string;
  readonly firstUserMessage: string;
  /** Tools offered to the agent (empty for benchmarks whose agent writes code). */
  readonly tools: ToolDef[];
  act(message: AssistantMessage): Promise<ActResult>;
  evaluate(): Promise<Evaluation>;
}

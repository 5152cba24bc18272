import type { ReferencePlan } from '../bench/index.js';
import { ProviderError } from '../errors.js';
import {
  countMessageTokens,
  countTokens,
  type AssistantMessage,
  type ChatMessage,
  type LlmProvider,
  type ProviderRequest,
  type ProviderResponse,
} from '../llm/index.js';
import { simAgentTurn } from './agent.js';
import { simQaAgentTurn } from './qa-agent.js';
import { simUtilityAnalysis } from './analyzer.js';
import { simCompressionAnalysis } from './compression-analysis.js';
import { CompressorMemo } from './compressor-memo.js';
import { RecordReader } from './record-reader.js';
import { simHistoryCompressor, simObservationCompressor } from './compressor.js';
import { simGuidelineUpdate } from './updater.js';

/**
 * The `sim` provider (ARCHITECTURE §6, issue 5): a deterministic simulation of every LLM role
 * that speaks exactly the formats a real model must (OpenAI assistant messages, tool calls
 * with JSON-string arguments, the compressor headings, JSON answers for the analyzer and the
 * updater), so the pipeline runs the same code with it as with a real model.
 *
 * Every answer is a pure function of the request and these options: the same request always
 * gets the same answer.
 */
export type SimProviderOptions = {
  /** Seeds the agent's slips and guesses and the updater's candidates (config `sim.seed`). */
  seed: number;
  /** Failed re-fetches of a missing fact before the agent guesses it (config `sim.refetch_limit`). */
  refetchLimit: number;
  /** Probability that the agent slips on a plan step (config `sim.noise`, default 0.03 there). @default 0 */
  noise?: number;
  /** The task's reference plan, which the simulated agent follows (`Benchmark.referencePlan`). */
  planFor: (taskId: string) => Promise<ReferencePlan>;
};

export class SimProvider implements LlmProvider {
  readonly name = 'sim';
  readonly simulated = true as const;
  private readonly plans = new Map<string, Promise<ReferencePlan>>();
  /** The compressors' judgements already made in this provider's calls (compressor-memo.ts). */
  private readonly compressorMemo = new CompressorMemo();
  /** The records the agent read in this provider's calls (record-reader.ts). */
  private readonly recordReader = new RecordReader();

  constructor(private readonly opts: SimProviderOptions) {
    if (!Number.isInteger(opts.refetchLimit) || opts.refetchLimit < 0) {
      throw new ProviderError(
        `sim: refetchLimit must be an integer from 0 up, got ${String(opts.refetchLimit)}; set sim.refetch_limit in acon.config.yaml`,
      );
    }
    const noise = opts.noise ?? 0;
    if (!(noise >= 0 && noise <= 1)) {
      throw new ProviderError(
        `sim: noise must be a probability from 0 to 1, got ${String(noise)}; set sim.noise in acon.config.yaml`,
      );
    }
  }

  async chat(req: ProviderRequest, signal?: AbortSignal): Promise<ProviderResponse> {
    signal?.throwIfAborted();
    const message = await this.answer(req);
    let completionTokens = countTokens(message.content ?? '');
    for (const call of message.tool_calls ?? []) {
      completionTokens += countTokens(call.function.name) + countTokens(call.function.arguments);
    }
    return {
      message,
      usage: {
        promptTokens: countMessageTokens(req.messages, req.tools),
        cachedPromptTokens: 0,
        completionTokens,
      },
    };
  }

  private async answer(req: ProviderRequest): Promise<AssistantMessage> {
    const { ctx, messages } = req;
    switch (ctx.role) {
      case 'agent': {
        if (ctx.taskId === undefined) {
          throw new ProviderError('sim: an agent call needs ctx.taskId to find the reference plan');
        }
        const plan = await this.plan(ctx.taskId);
        const step = ctx.step ?? messages.filter((m) => m.role === 'assistant').length;
        const turn = plan.agent === 'qa' ? simQaAgentTurn : simAgentTurn;
        return turn(
          plan,
          messages,
          { taskId: ctx.taskId, step },
          {
            seed: this.opts.seed,
            refetchLimit: this.opts.refetchLimit,
            noise: this.opts.noise ?? 0,
            ...(req.seed !== undefined ? { sampleSeed: req.seed } : {}),
          },
          this.recordReader,
        );
      }
      case 'obs_compressor':
        return text(simObservationCompressor(messages, this.compressorMemo));
      case 'hist_compressor':
        return text(simHistoryCompressor(messages, this.compressorMemo));
      case 'analyzer': {
        const user = userText(messages);
        const co =
          req.responseFormat?.name === 'compression_analysis' ||
          (req.responseFormat === undefined && user.includes('<compression_events>'));
        return json(co ? simCompressionAnalysis(user) : simUtilityAnalysis(user));
      }
      case 'updater':
        return json(simGuidelineUpdate({ seed: this.opts.seed, user: userText(messages) }));
      case 'judge':
        // Whether two answers mean the same is the judgement a judge model is configured for;
        // the sim has no such model, and a rule standing in for it would be the normaliser again.
        throw new ProviderError(
          'sim: there is no simulated judge; give roles.judge a real model (provider: openai), or leave it unset and the answer normaliser decides',
        );
    }
  }

  private plan(taskId: string): Promise<ReferencePlan> {
    let plan = this.plans.get(taskId);
    if (!plan) {
      plan = this.opts.planFor(taskId).then((p) => {
        if (p.steps.length === 0) {
          throw new ProviderError(`sim: task ${taskId} has an empty reference plan`);
        }
        return p;
      });
      // A failed look-up is not remembered: the next call tries again.
      plan.catch(() => this.plans.delete(taskId));
      this.plans.set(taskId, plan);
    }
    return plan;
  }
}

export function createSimProvider(opts: SimProviderOptions): SimProvider {
  return new SimProvider(opts);
}

function userText(messages: readonly ChatMessage[]): string {
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
}

function text(content: string): AssistantMessage {
  return { role: 'assistant', content };
}

function json(value: unknown): AssistantMessage {
  return { role: 'assistant', content: JSON.stringify(value) };
}

export { simAgentTurn, parseAgentMarker, corrupt } from './agent.js';
export type { AgentMarker, SimAgentOptions } from './agent.js';

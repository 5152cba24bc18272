import PQueue from 'p-queue';
import { createStrategy } from '../../agent/index.js';
import type { GuidelinePair } from '../../domain/index.js';
import type { Config } from '../../config/index.js';
import type { Trace } from '../../domain/index.js';
import type { TokenCounter, LlmClient } from '../../llm/index.js';
import { isolatedContext } from '../condition.js';
import { createAnswerJudge } from './judge.js';
import { replayTrace, type TraceReplay } from './replay.js';

/** A guideline pair replayed on traces; `only` turns the other compressor off (isolated stages). */
export type ReplayCondition = { label: string; pair: GuidelinePair; only?: 'obs' | 'hist' };

export type ReplayTracesOptions = {
  traces: readonly Trace[];
  condition: ReplayCondition;
  config: Config;
  llm: LlmClient;
  tokens: TokenCounter;
  runId: string;
  /** Conversations replayed at once. @default config.run.concurrency */
  concurrency?: number;
  normalizeAnswer?: (s: string) => string;
  signal?: AbortSignal;
};

/**
 * Every conversation replayed under one guideline pair, in the order given. The compressors and
 * the agent are the run's roles; each call is recorded under `replay:<label>/<trace id>`, so a
 * second replay of the same pair is served from the call cache.
 */
export async function replayTraces(opts: ReplayTracesOptions): Promise<TraceReplay[]> {
  const { config, condition } = opts;
  const context = isolatedContext(config.context, condition.only);
  // roles.judge configured: free-text answers the normaliser finds different go to it.
  const judge =
    config.roles.judge === undefined
      ? undefined
      : createAnswerJudge(opts.llm, config.agent.max_output_retries);
  const queue = new PQueue({ concurrency: opts.concurrency ?? config.run.concurrency });
  const jobs = opts.traces.map((trace) =>
    queue.add(async () => {
      opts.signal?.throwIfAborted();
      const callCtx = {
        runId: opts.runId,
        rolloutId: `replay:${condition.label}/${trace.id}`,
        taskId: trace.taskId ?? trace.id,
      };
      const strategy = createStrategy(
        'acon',
        { ...context, guidelines: condition.pair },
        {
          llm: opts.llm,
          callCtx,
          maxOutputRetries: config.agent.max_output_retries,
          tokens: opts.tokens,
        },
      );
      return replayTrace({
        trace,
        strategy,
        llm: opts.llm,
        tokens: opts.tokens,
        callCtx,
        ...(opts.normalizeAnswer ? { normalizeAnswer: opts.normalizeAnswer } : {}),
        ...(judge ? { judge } : {}),
      });
    }),
  );
  return Promise.all(jobs) as Promise<TraceReplay[]>;
}

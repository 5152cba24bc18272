import type { Trace } from '../../domain/index.js';
import type { TokenCounter } from '../../llm/index.js';
import type { RunEnv } from '../env.js';
import { ReplayMetricsSchema, replayMetrics, type ReplayMetrics } from './replay-metrics.js';
import { replayTraces, type ReplayCondition } from './replay-traces.js';

/**
 * The replay metrics of `condition` on `traces`, checkpointed in the run under `key`: replayed
 * (after `starting`, say a log line) only when the run has not stored them yet, so a resumed run
 * replays only what it had not finished.
 */
export async function storedReplayMetrics(
  env: Pick<RunEnv, 'store' | 'config' | 'llm' | 'abort'>,
  replay: {
    runId: string;
    key: string;
    traces: readonly Trace[];
    condition: ReplayCondition;
    tokens: TokenCounter;
    starting?: () => void;
  },
): Promise<ReplayMetrics> {
  const { runId, key } = replay;
  const stored = env.store.getState(runId, key, ReplayMetricsSchema);
  if (stored) return stored;
  replay.starting?.();
  const metrics = replayMetrics(
    await replayTraces({
      traces: replay.traces,
      condition: replay.condition,
      config: env.config,
      llm: env.llm,
      tokens: replay.tokens,
      runId,
      signal: env.abort.signal,
    }),
  );
  env.store.setState(runId, key, metrics);
  return metrics;
}

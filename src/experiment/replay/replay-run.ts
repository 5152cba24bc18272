import { z } from 'zod';
import { roleTokenCounter, tokenizerProvenance } from '../../llm/index.js';
import { ProducerShape, TokenizerShape, type Trace } from '../../domain/index.js';
import type { NamedPair } from '../../guidelines/index.js';
import type { RunEnv } from '../env.js';
import { inRun } from '../run-lifecycle.js';
import { ReplayMetricsSchema } from './replay-metrics.js';
import { storedReplayMetrics } from './stored-replay.js';

/** What `acon replay` records with its run (and `--resume` reads back). */
export const ReplayParamsSchema = z.object({
  /** The `--traces` source as given: `run-…[:CONDITION]`, `proxy-…` or a JSONL path. */
  traces: z.string(),
  /** The `--guidelines` list as given (`v0,active`). */
  guidelines: z.string(),
  skipInvalid: z.boolean().default(false),
});
export type ReplayParams = z.infer<typeof ReplayParamsSchema>;

export const ReplayRowSchema = z.object({
  label: z.string(),
  obs: z.string(),
  hist: z.string(),
  metrics: ReplayMetricsSchema,
});
export type ReplayRow = z.infer<typeof ReplayRowSchema>;

/** `acon replay --json` (`acon schema replay`). */
export const ReplayResultSchema = z.object({
  runId: z.string(),
  source: z.string(),
  ...ProducerShape,
  // The agent's tokenizer: thresholds and view tokens were counted in it.
  ...TokenizerShape,
  /** Conversations replayed (failed ones are never a full-context reference: left out). */
  traces: z.number().int(),
  failedLeftOut: z.number().int(),
  /** Lines refused and skipped (`--skip-invalid`). */
  skippedLines: z.number().int(),
  rows: z.array(ReplayRowSchema),
});
export type ReplayResult = z.infer<typeof ReplayResultSchema>;

/**
 * The conversations a replay compares against: a failed one (`outcome: failure`) shows what the
 * agent did when it went wrong, so agreeing with it is no evidence; it is left out.
 */
export function referenceTraces(traces: readonly Trace[]): { used: Trace[]; failed: number } {
  const used = traces.filter((t) => t.outcome !== 'failure');
  return { used, failed: traces.length - used.length };
}

/**
 * `acon replay`: every guideline pair replayed on the same conversations, both compressors on as
 * they would be deployed. One run of kind `replay` holds the agent's and the compressors' calls;
 * each pair's metrics are checkpointed, so `--resume` replays only the pairs not finished (and
 * a pair interrupted midway is answered from the call cache up to where it stopped).
 */
export async function runReplay(
  env: RunEnv,
  params: ReplayParams,
  input: {
    traces: readonly Trace[];
    skippedLines: number;
    pairs: readonly NamedPair[];
    resume?: string;
    command: string;
    log?: (line: string) => void;
  },
): Promise<ReplayResult> {
  return inRun(
    env,
    {
      resume: input.resume,
      kind: 'replay',
      command: input.command,
      bench: env.bench.name,
      params,
      resumeWith: 'acon replay',
    },
    async (runId) => {
      const { used, failed } = referenceTraces(input.traces);
      const rows: ReplayRow[] = [];
      // The run's config names the agent's tokenizer: thresholds fire where they did in the run.
      const tokens = roleTokenCounter(env.config, 'agent', env.llm);
      for (const { label, pair } of input.pairs) {
        const metrics = await storedReplayMetrics(env, {
          runId,
          key: `replay:${label}`,
          traces: used,
          condition: { label, pair },
          tokens,
          starting: () =>
            input.log?.(
              `replay: ${label} (${pair.obs.id}, ${pair.hist.id}) on ${used.length} conversations`,
            ),
        });
        rows.push({ label, obs: pair.obs.id, hist: pair.hist.id, metrics });
      }
      const result: ReplayResult = {
        runId,
        source: params.traces,
        provider: env.provider,
        models: env.models,
        simulated: env.simulated,
        ...tokenizerProvenance(env.config, 'agent', tokens),
        traces: used.length,
        failedLeftOut: failed,
        skippedLines: input.skippedLines,
        rows,
      };
      env.store.setRunStatus(runId, 'finished', { rows });
      return result;
    },
  );
}

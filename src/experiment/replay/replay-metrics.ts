import { ReplayMetricsSchema, type ReplayMetrics } from '../../domain/index.js';
import type { TraceReplay } from './replay.js';

export { ReplayMetricsSchema, type ReplayMetrics };

const share = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);
const mean = (xs: number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

export function replayMetrics(replays: readonly TraceReplay[]): ReplayMetrics {
  const steps = replays.flatMap((r) => r.steps);
  const compressed = steps.filter((s) => s.compressed);
  const agreeing = compressed.filter((s) => s.agrees).length;
  const kept = steps.reduce((n, s) => n + s.kept.length, 0);
  const probes = kept + steps.reduce((n, s) => n + s.lost.length, 0);
  const events = replays
    .flatMap((r) => r.events)
    .filter((e) => e.kind === 'obs' || e.kind === 'hist');
  return {
    traces: replays.length,
    steps: steps.length,
    compressedSteps: compressed.length,
    agreeingSteps: agreeing,
    agreement: share(agreeing, compressed.length),
    probes,
    probesKept: kept,
    probeRecall: share(kept, probes),
    peakTokens: mean(replays.map((r) => Math.max(0, ...r.steps.map((s) => s.viewTokens)))),
    fullPeakTokens: mean(replays.map((r) => Math.max(0, ...r.steps.map((s) => s.fullTokens)))),
    compressions: events.length,
    failedCompressions: events.filter((e) => e.failed).length,
  };
}

/**
 * Per conversation, whether every compressed step agreed and no probe was lost: the paired
 * outcome the decision rules compare candidate and parent by (a conversation is a "task").
 */
export function traceOutcomes(replays: readonly TraceReplay[]): Map<string, boolean> {
  return new Map(
    replays.map((r) => [r.traceId, r.steps.every((s) => s.agrees && s.lost.length === 0)]),
  );
}

import PQueue from 'p-queue';
import { z } from 'zod';
import type { GuidelinePair } from '../domain/index.js';
import type { TokenCounter } from '../llm/index.js';
import { ReplayMetricsSchema, type ReplayMetrics, type Trace } from '../domain/index.js';
import { replayMetrics, replayTraces, type RunEnv, type TraceReplay } from '../experiment/index.js';
import {
  CandidateSlotsSchema,
  reserveCandidates,
  writeCandidates,
  type CandidateSlot,
  type GuidelineKind,
  toVersionRow,
  type GuidelineStore,
} from '../guidelines/index.js';
import type { AnalysisRecord } from './analyze.js';
import type { DecisionParams } from './decision-rule.js';
import type { Phase } from './params.js';
import { feedbackSamples } from './stage-candidates.js';
import { withKind } from './stage.js';
import { better, decide, paired } from './trace-scores.js';
import {
  analyzeTraceAgreement,
  analyzeTraceDivergence,
  contrastiveStep,
} from './trace-analyses.js';
import { proposeCandidates, withoutRepeats } from './update.js';

/** What the trace stages of one run share. */
export type TraceStageContext = {
  env: RunEnv;
  runId: string;
  guidelines: GuidelineStore;
  train: Trace[];
  select: Trace[];
  candidates: number;
  /** The paired rule's settings (the run's optimize.alpha and optimize.margin). */
  decision: DecisionParams;
  log: (line: string) => void;
  /** Thresholds and view tokens, in the agent's tokenizer (roleTokenCounter). */
  tokens: TokenCounter;
};

export const TraceCandidateReportSchema = z.object({
  id: z.string().nullable(),
  index: z.number().int(),
  status: z.enum(['accepted', 'rejected']),
  reason: z.string(),
  /** Replay metrics on the selection conversations (never accuracy); null when not replayed. */
  metrics: ReplayMetricsSchema.nullable(),
});

export const TraceStageResultSchema = z.object({
  stage: z.string(),
  parent: z.string(),
  accepted: z.string().nullable(),
  /** UT: train conversations with a contrastive step; CO: agreeing train conversations. */
  cases: z.number().int(),
  analyses: z.number().int(),
  failedAnalyses: z.number().int(),
  parentMetrics: ReplayMetricsSchema.nullable(),
  candidates: z.array(TraceCandidateReportSchema),
});
export type TraceStageResult = z.infer<typeof TraceStageResultSchema>;

type Usable = Extract<AnalysisRecord<unknown>, { ok: true }>;
const RecordsSchema = z.array(z.unknown());

/** One pair replayed on conversations with only `kind`'s compressor on (phase isolation). */
async function replayPair(
  tc: TraceStageContext,
  label: string,
  pair: GuidelinePair,
  kind: GuidelineKind,
  traces: readonly Trace[],
): Promise<TraceReplay[]> {
  return replayTraces({
    traces,
    condition: { label, pair, only: kind },
    config: tc.env.config,
    llm: tc.env.llm,
    tokens: tc.tokens,
    runId: tc.runId,
    signal: tc.env.abort.signal,
  });
}

/**
 * One phase of one guideline kind from recorded conversations (issue #57), checkpointed like an
 * environment stage (`<stage>:analyses`, `<stage>:candidates`, `<stage>:result`):
 * 1. the train conversations replayed under the parent (only this compressor on);
 * 2. UT: each conversation's contrastive step (first disagreement, else first lost probe)
 *    analysed with the trace analyzer prompt; CO: each conversation whose compressed steps all
 *    agreed and kept their probes, analysed for what was kept and never used;
 * 3. K updater candidates, each from its own sample of analyses;
 * 4. parent and candidates replayed on the selection conversations; a conversation is a paired
 *    unit, "solved" when every compressed step agreed and no probe was lost; the decision rules
 *    of decision-rule.ts (UT: exact sign test; CO: non-inferiority) with mean peak tokens as
 *    the tokens; among accepted candidates the highest agreement, then probe recall, then
 *    fewest peak tokens wins.
 */
export async function runTraceStage(
  tc: TraceStageContext,
  phase: Phase,
  kind: GuidelineKind,
  round: number,
  current: GuidelinePair,
): Promise<{ pair: GuidelinePair; result: TraceStageResult }> {
  const name = `trace-${phase}:${kind}:r${round}`;
  const { store } = tc.env;
  const done = store.getState(tc.runId, `${name}:result`, TraceStageResultSchema);
  if (done) return { pair: withKind(current, kind, done.accepted, tc.guidelines), result: done };
  const parent = current[kind];

  const records = await stageAnalyses(tc, name, phase, kind, current);
  const usable = records.filter((r): r is Usable => r.ok);
  const base = {
    stage: name,
    parent: parent.id,
    cases: records.length,
    analyses: usable.length,
    failedAnalyses: records.length - usable.length,
  };
  const finish = (result: TraceStageResult) => {
    store.setState(tc.runId, `${name}:result`, result);
    return { pair: withKind(current, kind, result.accepted, tc.guidelines), result };
  };
  if (usable.length === 0) {
    tc.log(`${name}: nothing to learn from (no usable analyses); ${parent.id} stays`);
    return finish({ ...base, accepted: null, parentMetrics: null, candidates: [] });
  }

  const slots = await stageCandidates(tc, name, phase, kind, round, parent, usable);
  const valid = slots.filter((s) => s.id !== null && s.reason === null);
  const unscored = slots
    .filter((s) => !valid.includes(s))
    .map((s) => ({
      id: s.id,
      index: s.index,
      status: 'rejected' as const,
      reason: s.reason ?? 'empty proposal',
      metrics: null,
    }));
  if (valid.length === 0) {
    tc.log(`${name}: no candidate to evaluate; ${parent.id} stays`);
    return finish({ ...base, accepted: null, parentMetrics: null, candidates: unscored });
  }

  const { parentMetrics, winner, reports } = await evaluateCandidates(
    tc,
    name,
    phase,
    kind,
    current,
    valid,
  );
  for (const r of reports) recordVerdict(tc, r, tc.select.length);
  const result: TraceStageResult = {
    ...base,
    accepted: winner?.slot.id ?? null,
    parentMetrics,
    candidates: [...reports, ...unscored].sort((a, b) => a.index - b.index),
  };
  tc.log(
    winner
      ? `${name}: ${winner.slot.id} accepted (${winner.decision.reason})`
      : `${name}: no candidate accepted; ${parent.id} stays`,
  );
  return finish(result);
}

/** Parent and candidates replayed on the selection conversations, decided pair by pair. */
async function evaluateCandidates(
  tc: TraceStageContext,
  name: string,
  phase: Phase,
  kind: GuidelineKind,
  current: GuidelinePair,
  valid: CandidateSlot[],
) {
  const parent = current[kind];
  tc.log(
    `${name}: ${valid.length} candidates and ${parent.id} replayed on ${tc.select.length} selection conversations`,
  );
  const parentReplays = await replayPair(tc, parent.id, current, kind, tc.select);
  const parentMetrics = replayMetrics(parentReplays);
  const scored = await Promise.all(
    valid.map(async (slot) => {
      const pair = withKind(current, kind, slot.id, tc.guidelines);
      const replays = await replayPair(tc, slot.id!, pair, kind, tc.select);
      const decision = decide(phase, paired(parentReplays, replays), tc.decision);
      return { slot, metrics: replayMetrics(replays), decision };
    }),
  );
  const accepted = scored.filter((s) => s.decision.accepted);
  const winner = accepted.reduce<(typeof accepted)[number] | null>(
    (best, s) => (best === null || better(s.metrics, best.metrics) ? s : best),
    null,
  );
  const reports = scored.map((s) => ({
    id: s.slot.id,
    index: s.slot.index,
    status: s === winner ? ('accepted' as const) : ('rejected' as const),
    reason:
      s === winner || !s.decision.accepted
        ? s.decision.reason
        : `${s.decision.reason}; another candidate scored higher`,
    metrics: s.metrics,
  }));
  return { parentMetrics, winner, reports };
}

function recordVerdict(
  tc: TraceStageContext,
  r: {
    id: string | null;
    status: 'accepted' | 'rejected';
    reason: string;
    metrics: ReplayMetrics | null;
  },
  conversations: number,
): void {
  if (r.id === null) return;
  const m = r.metrics;
  tc.guidelines.update(r.id, {
    status: r.status,
    metrics: {
      ...(m
        ? {
            agreement: m.agreement,
            probeRecall: m.probeRecall,
            peakTokens: m.peakTokens,
          }
        : {}),
      split: 'traces (selection)',
      tasks: conversations,
      selection: r.reason,
    },
  });
  tc.env.store.saveGuidelineVersion(toVersionRow(tc.guidelines.get(r.id)));
}

async function stageAnalyses(
  tc: TraceStageContext,
  name: string,
  phase: Phase,
  kind: GuidelineKind,
  current: GuidelinePair,
): Promise<AnalysisRecord<unknown>[]> {
  const key = `${name}:analyses`;
  const stored = tc.env.store.getState(tc.runId, key, RecordsSchema);
  if (stored) return stored as AnalysisRecord<unknown>[];
  const parent = current[kind];
  const replays = await replayPair(tc, parent.id, current, kind, tc.train);
  const byId = new Map(tc.train.map((t) => [t.id, t]));
  const common = {
    llm: tc.env.llm,
    ctx: { runId: tc.runId },
    kind,
    guideline: parent.text,
    maxRetries: tc.env.config.agent.max_output_retries,
  };
  const queue = new PQueue({ concurrency: tc.env.config.run.concurrency });
  let jobs: Promise<AnalysisRecord<unknown>>[];
  if (phase === 'ut') {
    const cases = replays.flatMap((replay) => {
      const step = contrastiveStep(replay);
      return step ? [{ replay, step }] : [];
    });
    tc.log(
      `${name}: ${cases.length} of ${replays.length} train conversations where the compressed context changed the next step or lost a value; analyzing`,
    );
    jobs = cases.map(
      (c) =>
        queue.add(() =>
          analyzeTraceDivergence({
            ...common,
            trace: byId.get(c.replay.traceId)!,
            replay: c.replay,
            step: c.step,
          }),
        ) as Promise<AnalysisRecord<unknown>>,
    );
  } else {
    const agreeing = replays.filter(
      (r) =>
        r.steps.some((s) => s.compressed) && r.steps.every((s) => s.agrees && s.lost.length === 0),
    );
    tc.log(
      `${name}: ${agreeing.length} of ${replays.length} train conversations agreed on every compressed step; analyzing what was kept and not used`,
    );
    jobs = agreeing.map(
      (replay) =>
        queue.add(() =>
          analyzeTraceAgreement({ ...common, trace: byId.get(replay.traceId)!, replay }),
        ) as Promise<AnalysisRecord<unknown>>,
    );
  }
  const records = await Promise.all(jobs);
  tc.env.store.setState(tc.runId, key, records);
  return records;
}

async function stageCandidates(
  tc: TraceStageContext,
  name: string,
  phase: Phase,
  kind: GuidelineKind,
  round: number,
  parent: { id: string; text: string },
  usable: Usable[],
) {
  const { env, runId } = tc;
  const key = `${name}:candidates`;
  let slots = env.store.getState(runId, key, CandidateSlotsSchema);
  if (!slots) {
    const samples = feedbackSamples(usable, tc.candidates, env.config.optimize.feedback_sample, [
      env.config.seed,
      name,
    ]);
    tc.log(`${name}: updater writes ${tc.candidates} candidates from ${usable.length} analyses`);
    const proposed = await proposeCandidates({
      llm: env.llm,
      ctx: { runId },
      phase,
      kind,
      guideline: parent.text,
      samples: samples.map((sample) =>
        sample.map((a) => ({ task: a.taskId, ...(a.analysis as object) })),
      ),
      maxRetries: env.config.agent.max_output_retries,
      ...(phase === 'ut' ? { prompt: 'updater-trace-ut' } : {}),
    });
    const proposals = withoutRepeats(proposed, parent);
    slots = reserveCandidates(
      tc.guidelines,
      {
        kind,
        parent: parent.id,
        phase,
        run: runId,
        bench: env.bench.name,
        analysesOf: (index) => (samples[index] ?? []).map((a) => a.taskId),
        slugOf: (index) => `trace-${phase}-r${round}-c${index + 1}`,
      },
      proposals,
    );
    env.store.setState(runId, key, slots);
  }
  writeCandidates(tc.guidelines, slots);
  return slots;
}

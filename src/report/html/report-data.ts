import { z } from 'zod';
import { unifiedDiff } from '../../guidelines/index.js';
import type { GuidelineVersionRow, RunStore } from '../../store/index.js';
import { conditionMetrics, withPareto } from '../../metrics/index.js';
import { ConditionMetricsSchema, type RolloutRow } from '../../domain/index.js';
import { rolloutShow, type RolloutShow } from '../rollout-view.js';
import { DEFAULT_MAX_TRAJECTORIES, embeddedRollouts, splitPriority } from './embedded-rollouts.js';
import { Packer, packForPage } from './pack.js';
import { RolloutSummarySchema, RunInfoSchema, runInfo, summarizeRollout } from '../run-show.js';
import { costByRole } from '../cost-by-role.js';
import { nameKey, storedVerdicts } from '../stored-verdicts.js';

/** Why a failed compression's text was kept, as its event recorded it; older events give none. */
const NO_REASON = 'no usable answer after the retries';

const FailureRowSchema = z.object({
  split: z.string(),
  condition: z.string(),
  /** What the terminal called the row, as in `conditions`. */
  name: z.string(),
  failedCompressions: z.number().int(),
  compressionEvents: z.number().int(),
  /** Failed compressions by reason, most frequent first. */
  reasons: z.array(z.object({ reason: z.string(), count: z.number().int() })),
  contextFallbacks: z.number().int(),
  tasks: z.number().int(),
  /** Where: each rollout with a failed compression or a context-limit fallback, in store order. */
  rollouts: z.array(
    z.object({
      id: z.string(),
      taskId: z.string(),
      failedCompressions: z.number().int(),
      contextFallback: z.boolean(),
    }),
  ),
});
export type FailureRow = z.infer<typeof FailureRowSchema>;

/** Everything the HTML report draws, computed here (never in the page) and embedded as JSON. */
export const ReportDataSchema = z.object({
  run: RunInfoSchema,
  generatedAt: z.string(),
  /** Condition metrics per split (peak reduction and elongation against raw of the same split). */
  conditions: z.array(
    ConditionMetricsSchema.extend({
      split: z.string(),
      /** On the split's Pareto front of accuracy vs mean peak tokens (pareto.ts). */
      pareto: z.boolean(),
      /** What the terminal called the row (`UTCO both`, `v0 obs`); else the condition's label. */
      name: z.string(),
    }),
  ),
  /** The verdict line of each split the command judged, as the terminal printed it. */
  verdicts: z.array(z.object({ split: z.string(), line: z.string() })),
  rollouts: z.array(RolloutSummarySchema),
  costByRole: z.array(
    z.object({
      role: z.string(),
      calls: z.number().int(),
      inputTokens: z.number().int(),
      outputTokens: z.number().int(),
      costUsd: z.number(),
    }),
  ),
  /** Guideline versions of the run and the versions it started from, with a diff to the parent. */
  lineage: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(['obs', 'hist']),
      parent: z.string().nullable(),
      phase: z.string(),
      status: z.string(),
      accuracy: z.number().nullable(),
      peakTokens: z.number().nullable(),
      /** Why it was accepted or rejected (the selection's verdict). */
      reason: z.string().nullable(),
      /** Unified diff against the parent ('' when the parent's text is unknown or equal). */
      diff: z.string(),
      /** Root-to-version path for the tree (`obs-0000/obs-0003/obs-0008`). */
      path: z.string(),
    }),
  ),
  /**
   * What went wrong without stopping a rollout (issue #54), per split and condition where any
   * happened: failed compressions with each reason's count, and rollouts that hit the context
   * limit and went on with a cut-down prompt. Empty when nothing failed.
   */
  failures: z.array(FailureRowSchema),
  /** Ids of the rollouts whose trajectory is embedded: at most `maxTrajectories` (embedded-rollouts.ts). */
  trajectoryIds: z.array(z.string()),
  /**
   * Those trajectories for the viewer (`RolloutShowSchema`) by rollout id, packed, gzipped and
   * base64-encoded for the page (pack.ts `packForPage`).
   */
  trajectories: z.string(),
  /** Rollouts whose trajectory was left out to keep the file small. */
  omittedTrajectories: z.number().int(),
});
export type ReportData = z.infer<typeof ReportDataSchema>;

const StartPairSchema = z.object({
  obs: z.object({ id: z.string(), text: z.string() }),
  hist: z.object({ id: z.string(), text: z.string() }),
});

export type ReportDataOptions = {
  /** Trajectories embedded for the viewer. @default DEFAULT_MAX_TRAJECTORIES (100) */
  maxTrajectories?: number;
  /** Characters kept of each long text in the viewer (observations, compressor input and output). @default 3000 */
  maxTextChars?: number;
  /** Clock for `generatedAt`. */
  now?: () => Date;
};

/** Builds the report's data from the store (read-only). */
export async function reportData(
  store: RunStore,
  runId: string,
  opts: ReportDataOptions = {},
): Promise<ReportData> {
  const run = store.getRun(runId);
  const rows = store.rollouts(runId);
  const seed = typeof run.config.seed === 'number' ? run.config.seed : 0;
  const max = opts.maxTrajectories ?? DEFAULT_MAX_TRAJECTORIES;
  const chosen = embeddedRollouts(rows, max, splitPriority(run.params));
  // Each view is packed as soon as it is built: only the table of lines stays in memory.
  const packer = new Packer();
  const packed: Record<string, unknown> = {};
  for (const r of chosen) {
    const view = rolloutShow(
      r,
      store.trajectoryHead(r.id),
      store.stepRecords(r.id),
      store.events(r.id),
      run.simulated,
    );
    packed[r.id] = packer.pack(clipTexts(view, opts.maxTextChars ?? 3000));
  }
  // Compressed on the thread pool while the tables below are computed (issue #30).
  const trajectories = packForPage({ lines: packer.lines, value: packed });
  const conditions = conditionsBySplit(rows, seed);
  const { names, verdicts } = storedVerdicts(run, conditions);
  return {
    run: runInfo(run),
    generatedAt: (opts.now?.() ?? new Date()).toISOString(),
    conditions: conditions.map((c) => ({
      ...c,
      name: names.get(nameKey(c.split, c.condition)) ?? c.condition,
    })),
    verdicts,
    rollouts: rows.map(summarizeRollout),
    costByRole: costByRole(rows, store.usageOutsideRollouts(runId)),
    lineage: lineage(
      store.guidelineVersions(runId),
      store.getState(runId, 'start', StartPairSchema) ?? null,
    ),
    failures: failureRows(store, rows, conditions, names),
    trajectoryIds: Object.keys(packed),
    trajectories: await trajectories,
    omittedTrajectories: rows.length - chosen.length,
  };
}

/** Shortens long texts so a report of hundreds of rollouts stays a few MB. */
function clipTexts(v: RolloutShow, max: number): RolloutShow {
  const clip = (t: string) =>
    t.length <= max
      ? t
      : `${t.slice(0, max)}\n… ${(t.length - max).toLocaleString('en-US')} more characters (acon rollout show ${v.rollout.id.slice(0, 8)} --full)`;
  return {
    ...v,
    system: clip(v.system),
    steps: v.steps.map((s) => ({
      ...s,
      compressions: s.compressions.map((c) => ({
        ...c,
        input: clip(c.input),
        output: clip(c.output),
      })),
      actions: s.actions.map(clip),
      observations: s.observations.map(clip),
    })),
  };
}

function conditionsBySplit(
  rows: RolloutRow[],
  seed: number,
): Omit<ReportData['conditions'][number], 'name'>[] {
  const groups = new Map<string, Map<string, RolloutRow[]>>();
  for (const r of rows) {
    const bySplit = groups.get(r.split) ?? new Map<string, RolloutRow[]>();
    const list = bySplit.get(r.condition) ?? [];
    list.push(r);
    bySplit.set(r.condition, list);
    groups.set(r.split, bySplit);
  }
  const out: Omit<ReportData['conditions'][number], 'name'>[] = [];
  for (const [split, byCondition] of groups) {
    const raw = byCondition.get('raw')?.map((r) => r.metrics);
    const metrics = [...byCondition].map(([condition, list]) => ({
      ...conditionMetrics(
        condition,
        list.map((r) => r.metrics),
        { seed, raw },
      ),
      split,
    }));
    out.push(...withPareto(metrics));
  }
  return out;
}

/**
 * The failures of each (split, condition) that had any. Only rollouts whose metrics count a
 * failed compression have their events read: a report of 10,000 rollouts with a few failures
 * decodes a few documents, not all.
 */
function failureRows(
  store: RunStore,
  rows: readonly RolloutRow[],
  conditions: readonly Omit<ReportData['conditions'][number], 'name'>[],
  names: ReadonlyMap<string, string>,
): FailureRow[] {
  const found = new Map<
    string,
    { reasons: Map<string, number>; rollouts: FailureRow['rollouts'] }
  >();
  for (const r of rows) {
    const failed = r.metrics.failedCompressions;
    const fellBack = r.metrics.reactiveEvents > 0;
    if (failed === 0 && !fellBack) continue;
    const key = nameKey(r.split, r.condition);
    const entry = found.get(key) ?? { reasons: new Map<string, number>(), rollouts: [] };
    if (failed > 0) {
      for (const e of store.events(r.id)) {
        if (!e.failed) continue;
        const reason = e.failureReason ?? NO_REASON;
        entry.reasons.set(reason, (entry.reasons.get(reason) ?? 0) + 1);
      }
    }
    entry.rollouts.push({
      id: r.id,
      taskId: r.task_id,
      failedCompressions: failed,
      contextFallback: fellBack,
    });
    found.set(key, entry);
  }
  return conditions
    .filter((c) => c.failedCompressions > 0 || c.contextFallbacks > 0)
    .map((c) => {
      const key = nameKey(c.split, c.condition);
      const entry = found.get(key);
      return {
        split: c.split,
        condition: c.condition,
        name: names.get(key) ?? c.condition,
        failedCompressions: c.failedCompressions,
        compressionEvents: c.compressionEvents,
        reasons: [...(entry?.reasons ?? [])]
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .map(([reason, count]) => ({ reason, count })),
        contextFallbacks: c.contextFallbacks,
        tasks: c.tasks,
        rollouts: entry?.rollouts ?? [],
      };
    });
}

function num(x: unknown): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

function lineage(
  versions: GuidelineVersionRow[],
  start: z.infer<typeof StartPairSchema> | null,
): ReportData['lineage'] {
  const all = new Map<string, GuidelineVersionRow>();
  // The versions the run started from are the roots of its tree (their rows may belong to no run).
  for (const s of start ? [start.obs, start.hist] : []) {
    all.set(s.id, {
      id: s.id,
      kind: s.id.startsWith('hist') ? 'hist' : 'obs',
      parent: null,
      phase: 'start',
      runId: null,
      status: 'start',
      path: '',
      text: s.text,
      metrics: {},
      createdAt: '',
    });
  }
  for (const v of versions) all.set(v.id, v);
  const pathOf = (id: string): string => {
    const seen: string[] = [];
    let cur: string | null = id;
    while (cur !== null && all.has(cur) && !seen.includes(cur)) {
      seen.unshift(cur);
      cur = all.get(cur)!.parent;
    }
    // A parent the run does not know becomes the root it hangs from.
    if (cur !== null && !seen.includes(cur)) seen.unshift(cur);
    return seen.join('/');
  };
  return [...all.values()].map((v) => {
    const parent = v.parent ? all.get(v.parent) : undefined;
    return {
      id: v.id,
      kind: v.kind,
      parent: v.parent,
      phase: v.phase,
      status: v.status,
      accuracy: num(v.metrics.accuracy),
      peakTokens: num(v.metrics.peakTokens),
      reason: typeof v.metrics.selection === 'string' ? v.metrics.selection : null,
      diff: parent
        ? unifiedDiff(
            { label: parent.id, text: parent.text },
            { label: v.id, text: v.text },
            { color: false },
          )
        : '',
      path: pathOf(v.id),
    };
  });
}

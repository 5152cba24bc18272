import type { Column } from './fit-table.js';
import { conditionMetrics, RUN_DIFF_DEFINITIONS as DIFF_DEF } from '../metrics/index.js';
import type { ConditionMetrics } from '../domain/index.js';
import type { RolloutMetrics } from '../domain/index.js';
import { int, pct1, reductionPct } from './table.js';

/**
 * Teacher vs student (ACON distillation, seed 003): the same condition in two runs, e.g. the
 * optimized guidelines with the teacher compressor (run A) and with a fine-tuned student on its
 * own endpoint (run B), compared on the tasks both ran.
 */
export type RunDiffRow = {
  condition: string;
  tasks: number;
  a: ConditionMetrics;
  b: ConditionMetrics;
  /** Accuracy retention: B accuracy ÷ A accuracy (the paper's "% of teacher"); null when A is 0. */
  retention: number | null;
  /** 1 − B mean peak ÷ A mean peak; null when A's peak is 0. */
  peakChange: number | null;
};

/** Accuracy retention = student accuracy / teacher accuracy (the ACON paper, v3: distilled students keep most of the teacher's accuracy). */
export function accuracyRetention(student: number, teacher: number): number | null {
  return teacher > 0 ? student / teacher : null;
}

type Rollout = { condition: string; task_id: string; metrics: RolloutMetrics };

/**
 * Pairs conditions by label (or, when each run has a single condition under different labels,
 * those two) and compares them on the tasks both runs finished.
 */
export function diffRuns(a: Rollout[], b: Rollout[], seed: number): RunDiffRow[] {
  const labels = (rs: Rollout[]) => [...new Set(rs.map((r) => r.condition))].sort();
  const la = labels(a);
  const lb = labels(b);
  const pairs: [string, string][] = la.filter((l) => lb.includes(l)).map((l) => [l, l]);
  if (pairs.length === 0 && la.length === 1 && lb.length === 1) pairs.push([la[0]!, lb[0]!]);
  return pairs.map(([ca, cb]) => {
    const ra = a.filter((r) => r.condition === ca);
    const rb = b.filter((r) => r.condition === cb);
    const common = new Set(ra.map((r) => r.task_id).filter((t) => rb.some((r) => r.task_id === t)));
    const on = (rs: Rollout[]) => rs.filter((r) => common.has(r.task_id)).map((r) => r.metrics);
    const ma = conditionMetrics(ca, on(ra), { seed });
    const mb = conditionMetrics(cb, on(rb), { seed });
    return {
      condition: ca === cb ? ca : `${ca} | ${cb}`,
      tasks: common.size,
      a: ma,
      b: mb,
      retention: accuracyRetention(mb.accuracy, ma.accuracy),
      peakChange: ma.meanPeakTokens > 0 ? 1 - mb.meanPeakTokens / ma.meanPeakTokens : null,
    };
  });
}

export function runDiffColumns(): Column<RunDiffRow>[] {
  return [
    { key: 'condition', label: 'condition', value: (r) => r.condition, flex: true, minWidth: 20 },
    {
      key: 'tasks',
      label: 'n',
      note: DIFF_DEF.tasks,
      value: (r) => String(r.tasks),
      align: 'right',
    },
    { key: 'accA', label: 'acc% A', value: (r) => pct1(r.a.accuracy), align: 'right' },
    { key: 'accB', label: 'acc% B', value: (r) => pct1(r.b.accuracy), align: 'right' },
    {
      key: 'retention',
      label: 'retain%',
      note: DIFF_DEF.retention,
      value: (r) => (r.retention === null ? '—' : pct1(r.retention)),
      align: 'right',
    },
    { key: 'peakA', label: 'peak A', value: (r) => int(r.a.meanPeakTokens), align: 'right' },
    { key: 'peakB', label: 'peak B', value: (r) => int(r.b.meanPeakTokens), align: 'right' },
    {
      key: 'peakChange',
      label: 'Δpeak',
      note: DIFF_DEF.peakChange,
      value: (r) => reductionPct(r.peakChange),
      align: 'right',
      priority: 6,
    },
    {
      key: 'stepsA',
      label: 'steps A',
      value: (r) => r.a.meanSteps.toFixed(1),
      align: 'right',
      priority: 4,
    },
    {
      key: 'stepsB',
      label: 'steps B',
      value: (r) => r.b.meanSteps.toFixed(1),
      align: 'right',
      priority: 4,
    },
  ];
}

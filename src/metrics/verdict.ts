import type { ConditionMetrics } from '../domain/index.js';
import { paretoFlags } from './pareto.js';

/**
 * A row of one split's table; `name` is what the verdict calls it (a condition or a version).
 * `baseline: false` marks a row of the method itself (an optimize's UT or UTCO guidelines), which
 * is never the baseline the final guidelines are compared with. @default baseline true
 */
export type VerdictRow = Pick<
  ConditionMetrics,
  'condition' | 'accuracy' | 'accuracyCi' | 'meanPeakTokens' | 'tasks'
> &
  Partial<
    Pick<ConditionMetrics, 'failedCompressions' | 'compressionEvents' | 'contextFallbacks'>
  > & {
    name: string;
    baseline?: boolean;
  };

/** `−41%` (fewer peak tokens than raw) or `+3%`. */
const peakChange = (row: VerdictRow, raw: VerdictRow) => {
  if (raw.meanPeakTokens <= 0) return '?';
  const change = row.meanPeakTokens / raw.meanPeakTokens - 1;
  return `${change <= 0 ? '−' : '+'}${Math.abs(100 * change).toFixed(0)}%`;
};
/** `−1.3 pts` / `+0.0 pts`: the accuracy difference in percentage points. */
const points = (row: VerdictRow, raw: VerdictRow) => {
  const d = 100 * (row.accuracy - raw.accuracy);
  return `${d < -0.05 ? '−' : '+'}${Math.abs(d).toFixed(1)} pts`;
};
const ciOverlap = (a: VerdictRow, b: VerdictRow) =>
  a.accuracyCi[0] <= b.accuracyCi[1] && b.accuracyCi[0] <= a.accuracyCi[1];

/** `acon[…] −41% peak at −1.3 pts vs raw (CI overlaps)` */
function againstRaw(row: VerdictRow, raw: VerdictRow): string {
  const ci = ciOverlap(row, raw) ? 'CI overlaps' : 'CIs apart';
  return `${row.name} ${peakChange(row, raw)} peak at ${points(row, raw)} vs raw (${ci})`;
}

/**
 * The best baseline: of the baseline rows that are neither raw nor the final guidelines, the most
 * accurate, then the one with fewer peak tokens.
 */
function bestBaseline(rows: VerdictRow[], raw: VerdictRow, final: VerdictRow | undefined) {
  const live = rows.filter((r) => r.tasks > 0 && r.baseline !== false);
  const others = live.filter((r) => r !== raw && r !== final);
  return [...others].sort(
    (a, b) => b.accuracy - a.accuracy || a.meanPeakTokens - b.meanPeakTokens,
  )[0];
}

/**
 * One line for one split (issue #24), e.g.
 * `test: UTCO acon[obs-0004,hist-0007] −41% peak at −1.3 pts vs raw (CI overlaps); best baseline
 * masking −48% at −0.0 pts; Pareto: raw, masking, UTCO`. `final` names the row of the final
 * guidelines (optimize's last version, compare's acon); without raw only the Pareto set is named.
 */
export function verdictLine(split: string, rows: VerdictRow[], final?: string): string {
  const live = rows.filter((r) => r.tasks > 0);
  const flags = paretoFlags(live);
  const pareto = live.filter((_, i) => flags[i]).map((r) => r.name);
  const raw = live.find((r) => r.condition === 'raw');
  const fin = live.find((r) => r.name === final || r.condition === final);
  const parts: string[] = [];
  if (raw && fin) parts.push(againstRaw(fin, raw));
  const base = raw ? bestBaseline(live, raw, fin) : undefined;
  if (raw && base) {
    parts.push(`best baseline ${base.name} ${peakChange(base, raw)} at ${points(base, raw)}`);
  }
  parts.push(`Pareto: ${pareto.join(', ') || 'none'}`);
  parts.push(...failureNotes(live));
  return `${split}: ${parts.join('; ')}`;
}

/**
 * What the numbers above hide (issue #54): a failed compression keeps the uncompressed text, so
 * the row's peak is higher than its compressor would have made it; a rollout that hit the context
 * limit went on with a cut-down prompt, so raw was not the full context throughout.
 */
function failureNotes(rows: VerdictRow[]): string[] {
  const notes: string[] = [];
  for (const r of rows) {
    if ((r.failedCompressions ?? 0) > 0) {
      notes.push(
        `${r.name} peak inflated by ${r.failedCompressions}/${r.compressionEvents} failed compressions`,
      );
    }
  }
  for (const r of rows) {
    if ((r.contextFallbacks ?? 0) > 0) {
      const what =
        r.condition === 'raw' ? 'fell back to FIFO at the context limit' : 'hit the context limit';
      notes.push(`${r.name} ${what} in ${r.contextFallbacks}/${r.tasks} rollouts`);
    }
  }
  return notes;
}

/** The verdict of `acon run`/`compare`: conditions by their labels, the acon one as final. */
export function conditionsVerdict(split: string, rows: ConditionMetrics[]): string {
  const final = rows.find((r) => r.condition.startsWith('acon'))?.condition;
  return verdictLine(
    split,
    rows.map((r) => ({ ...r, name: r.condition })),
    final,
  );
}

/**
 * An optimize table's rows as the verdict names them (`UTCO both`, `v0 obs`, `masking`). The
 * baselines are the strategies and the starting guidelines (v0, or `start` for a later optimize);
 * UT and UTCO are the method's own stages, never the baseline the final guidelines are measured
 * against.
 */
export function versionVerdictRows<R extends Omit<VerdictRow, 'name' | 'baseline'>>(
  rows: (R & { version: string })[],
  finalLabel: string,
): VerdictRow[] {
  return rows.map((row) => ({
    ...row,
    name: row.condition === finalLabel ? `${row.version} ${row.condition}` : row.version,
    baseline:
      !row.condition.startsWith('acon[') ||
      row.version.startsWith('v0') ||
      row.version.startsWith('start'),
  }));
}

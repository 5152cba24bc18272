import type { GuidelinePair } from '../agent/context/options.js';
import type { GuidelineKind } from '../guidelines/schema.js';
import { makeCondition, type Condition } from './condition.js';
import type { OptimizeParams } from './params.js';
import { kindsOf } from './plan.js';

/** One row of the final table: a name a reader knows, the condition it ran, and a remark. */
export type FinalRow = { version: string; condition: Condition; note?: string };

/** The baselines of the paper's comparison, in its order (seed 001; paper v3 §4). */
export const BASELINES = ['raw', 'fifo', 'masking', 'summary', 'retrieval'] as const;

/**
 * The rows of optimize's final table (issue #23): the baselines, then v0, UT and UTCO for each
 * scope that was optimized: `obs` alone and `hist` alone (only that compressor on, as it was
 * tuned: what was optimized is what is deployed), and both together when both were targeted
 * (the paper reports each compressor on its own; combining them costs accuracy). A phase that
 * accepted nothing gives a row with the same condition and a note that says so; a phase that
 * did not run gives no row.
 */
export function finalRows(
  params: Pick<OptimizeParams, 'target' | 'phases'>,
  start: GuidelinePair,
  ut: GuidelinePair,
  final: GuidelinePair,
): FinalRow[] {
  const rows: FinalRow[] = BASELINES.map((b) => ({ version: b, condition: makeCondition(b) }));
  const scopes: (GuidelineKind | 'both')[] = [...kindsOf(params.target)];
  if (params.target === 'both') scopes.push('both');
  for (const scope of scopes) {
    const only = scope === 'both' ? undefined : scope;
    const name = (v: string) => (scope === 'both' ? `${v} both` : `${v} ${scope}`);
    const v0 = makeCondition('acon', start, only);
    rows.push({ version: name('v0'), condition: v0 });
    const utc = makeCondition('acon', ut, only);
    if (params.phases.includes('ut')) {
      rows.push({
        version: name('UT'),
        condition: utc,
        ...(utc.label === v0.label ? { note: 'UT accepted nothing: same guidelines as v0' } : {}),
      });
    }
    if (params.phases.includes('co')) {
      const co = makeCondition('acon', final, only);
      rows.push({
        version: name('UTCO'),
        condition: co,
        ...(co.label === utc.label ? { note: `CO accepted nothing: same guidelines as UT` } : {}),
      });
    }
  }
  return rows;
}

/** The distinct conditions of the rows (a phase that accepted nothing repeats its parent's). */
export function uniqueConditions(rows: readonly FinalRow[]): Condition[] {
  const seen = new Map<string, Condition>();
  for (const r of rows) if (!seen.has(r.condition.label)) seen.set(r.condition.label, r.condition);
  return [...seen.values()];
}

import type { GuidelinePair } from '../domain/index.js';
import type { GuidelineKind } from '../guidelines/index.js';
import { makeCondition, type Condition } from '../experiment/index.js';
import { kindsOf, type OptimizeParams } from './params.js';

/** One row of the final table: a name a reader knows, the condition it ran, and a remark. */
export type FinalRow = { version: string; condition: Condition; note?: string };

/** The baselines of the paper's comparison, in its order (seed 001; paper v3 §4). */
export const BASELINES = ['raw', 'fifo', 'masking', 'summary', 'retrieval'] as const;

/**
 * The rows of optimize's final table (issue #23): the baselines, then v0, UT and UTCO for each
 * scope that was optimized: `obs` alone and `hist` alone (only that compressor on, as it was
 * tuned: what was optimized is what is deployed), and both together when both were targeted
 * (the paper reports each compressor on its own; combining them costs accuracy). Versions that
 * are the same guidelines (a phase accepted nothing) share one row named `A=B` with a note that
 * says so (issue #24: never silently omitted); a phase that did not run has no row.
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
    const name = (v: string) => `${v} ${scope}`;
    const versions: FinalRow[] = [
      { version: name(startName(start)), condition: makeCondition('acon', start, only) },
    ];
    if (params.phases.includes('ut')) {
      versions.push({ version: name('UT'), condition: makeCondition('acon', ut, only) });
    }
    if (params.phases.includes('co')) {
      versions.push({ version: name('UTCO'), condition: makeCondition('acon', final, only) });
    }
    rows.push(...mergeSameCondition(versions));
  }
  return rows;
}

/**
 * What the starting pair is called in the tables: `v0` only when it is the seed versions (number
 * 0, what `acon init` writes); a second optimize starts from the first one's winners, which are
 * not v0 and must not read as the untrained baseline (issue #58).
 */
export function startName(start: GuidelinePair): 'v0' | 'start' {
  return [start.obs.id, start.hist.id].every((id) => /-0+$/.test(id)) ? 'v0' : 'start';
}

/** The condition the final guidelines are deployed as: the targeted compressor alone, or both. */
export function finalCondition(
  params: Pick<OptimizeParams, 'target'>,
  final: GuidelinePair,
): Condition {
  return makeCondition('acon', final, params.target === 'both' ? undefined : params.target);
}

/** Versions with the same condition become one row `A=B`, noting which phase accepted nothing. */
function mergeSameCondition(all: FinalRow[]): FinalRow[] {
  const out: FinalRow[] = [];
  for (const v of all) {
    const same = out.find((w) => w.condition.label === v.condition.label);
    if (!same) {
      out.push({ ...v });
      continue;
    }
    const phase = v.version.startsWith('UTCO') ? 'CO' : 'UT';
    same.version = `${same.version}=${v.version}`;
    const note = `${phase} accepted nothing`;
    same.note = same.note ? `${same.note}; ${note}` : note;
  }
  return out;
}

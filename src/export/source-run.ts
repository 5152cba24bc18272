import { NotFoundError } from '../errors.js';
import type { RunRow } from '../domain/index.js';
import type { ActiveGuidelines, ExportRole } from './schema.js';
import type { ExportSource } from './source.js';

/** The final versions an optimize run recorded in its summary (`final: {obs, hist}`). */
export function finalOf(run: RunRow): { obs: string; hist: string } | null {
  const final = (run.summary as { final?: { obs?: unknown; hist?: unknown } } | null)?.final;
  return typeof final?.obs === 'string' && typeof final.hist === 'string'
    ? { obs: final.obs, hist: final.hist }
    : null;
}

/** The versions an optimize run recorded after its utility phase (`ut: {obs, hist}`). */
export function utOf(run: RunRow): { obs: string; hist: string } | null {
  const ut = (run.summary as { ut?: { obs?: unknown; hist?: unknown } } | null)?.ut;
  return typeof ut?.obs === 'string' && typeof ut.hist === 'string'
    ? { obs: ut.obs, hist: ut.hist }
    : null;
}

/** The run an export reads without `--run`, and a note when the choice is not the obvious one. */
export type SourceRunChoice = { run: RunRow; note: string | null };

const kindsOf = (role: ExportRole): ('obs' | 'hist')[] =>
  role === 'agent' ? ['obs', 'hist'] : [role];

/**
 * The default teacher set (issue #24): the newest finished optimize run whose final guidelines
 * of the role are the active ones; else the newest finished optimize run (with a note that says
 * why). Only runs of `bench` when one is given. Never a compare or a run of another benchmark:
 * the latest run with rollouts was often a QA compare with no compressor calls of the role.
 * Null when there is no optimize run to take.
 */
export function defaultSourceRun(
  store: Pick<ExportSource, 'listRuns'>,
  role: ExportRole,
  bench: string | null,
  active: { obs: string; hist: string } | null,
): SourceRunChoice | null {
  const finished = store
    .listRuns('optimize')
    .filter((r) => finalOf(r) !== null && (bench === null || r.bench === bench));
  // A quick trial (`--max-tasks 1`: a handful of examples) is taken only when nothing else is
  // there (issue #58: export used to pick the newest optimize even when it was a trial).
  const runs = [...finished.filter((r) => !isTrial(r)), ...finished.filter(isTrial)];
  const kinds = kindsOf(role);
  const matching = runs.find((r) => active && kinds.every((k) => finalOf(r)![k] === active[k]));
  if (matching) return { run: matching, note: null };
  const newest = runs[0];
  if (!newest) return null;
  // Without active versions to compare with (a library caller), the newest run is the choice.
  if (!active) return { run: newest, note: null };
  const final = kinds.map((k) => finalOf(newest)![k]).join(', ');
  const trial = isTrial(newest) ? ', a trial with --max-tasks' : '';
  const activeText = active ? kinds.map((k) => active[k]).join(', ') : 'unknown';
  return {
    run: newest,
    note:
      `no optimize run ended with the active ${role} guideline (${activeText}); exporting the newest ` +
      `optimize run ${newest.id} (${newest.bench}, final ${final}${trial}); choose another with --run`,
  };
}

/** A run made on the first N tasks of each split only (`--max-tasks`). */
function isTrial(run: RunRow): boolean {
  const maxTasks = (run.params as { maxTasks?: unknown } | null)?.maxTasks;
  return typeof maxTasks === 'number';
}

/** Why there is nothing to export by default, and what to do. */
export function noSourceRunError(
  store: Pick<ExportSource, 'path' | 'latestRunWithRollouts'>,
  bench: string | null,
): NotFoundError {
  const of = bench === null ? '' : ` of ${bench}`;
  const latest = store.latestRunWithRollouts();
  const other = latest
    ? ` The newest run with rollouts is ${latest.id} (${latest.kind} on ${latest.bench}); export it with \`run\` ${latest.id} if it holds the teacher's calls.`
    : '';
  return new NotFoundError(
    `no finished optimize run${of} in ${store.path}, so no teacher set to export by default; run \`acon optimize${bench ? ` --bench ${bench}` : ''}\` first, or pass \`teacher\` to run the teacher now.${other}`,
    { options: ['run', 'teacher'] },
  );
}

/** Guideline filters take an `ActiveGuidelines` callback; this reads it once, safely. */
export function activePair(active: ActiveGuidelines | undefined) {
  return active?.() ?? null;
}

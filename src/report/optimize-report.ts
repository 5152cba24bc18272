import type { OptimizeResult } from '../optimize/index.js';
import {
  wrapLine,
  type FitOptions,
  conditionColumns,
  PEAK_NOTE,
  resultTable,
  runIdLine,
  SIMULATED_NOTE,
} from './index.js';
import type { ConditionMetrics } from '../domain/index.js';
import { verdictLine, versionVerdictRows } from '../metrics/index.js';

type VersionRow = ConditionMetrics & { version: string };

/** The end-of-run report of `acon optimize`: what each stage did, v0 vs UT vs UTCO, where the files are. */
export function optimizeReport(r: OptimizeResult, db: string, opts: FitOptions = {}): string {
  const limit = opts.wide ? Number.POSITIVE_INFINITY : (opts.width ?? 100);
  const out: string[] = [];
  // Continuation lines hang under the first by `hang`; every line stays within the limit.
  const push = (line: string, hang = '') => {
    const lead = /^ */.exec(line)![0];
    const lines = wrapLine(line.trimStart(), limit - lead.length - hang.length);
    out.push(...lines.map((l, i) => lead + (i === 0 ? '' : hang) + l));
  };
  out.push('stages:');
  for (const s of r.stages) {
    const verdict = s.accepted ? `accepted ${s.accepted}` : `kept ${s.parent}`;
    const found = {
      pairs: 'contrastive pairs',
      fallback: 'compressed failures (no pair: fallback)',
      successes: 'successful runs',
    }[s.analysisSource];
    push(
      `  ${s.stage}${s.isolated ? ' (isolated)' : ''}: ${s.pairs} ${found} on train, ` +
        `${s.analyses} analyses (${s.failedAnalyses} failed), ${s.candidates.length} candidates → ${verdict}`,
      '  ',
    );
    for (const c of s.candidates)
      push(`    ${c.id ?? `candidate ${c.index + 1}`} ${c.status}: ${c.reason}`, '  ');
    const sr = s.selectionRollouts;
    if (sr && sr.saved > 0)
      push(`    selection rollouts: ${sr.ran} run, ${sr.saved} saved by racing`, '  ');
    const lacked = incompleteLine(s);
    if (lacked) push(`    ${lacked}`, '  ');
  }
  const base = conditionColumns<VersionRow>();
  const columns = [
    { key: 'version', label: 'version', value: (row: VersionRow) => row.version },
    // The guideline pair is long (acon[obs-0002,hist-0001]); it is the column that shortens.
    { ...base[0]!, label: 'guidelines', minWidth: 24 },
    ...base.slice(1),
  ];
  for (const t of r.tables) {
    out.push(
      '',
      resultTable(t.rows, columns, t.provenance, { ...opts, simulatedNote: false }).trimEnd(),
    );
  }
  out.push('');
  const finalLabel = r.finalCondition;
  for (const t of r.tables) {
    push(
      `verdict ${verdictLine(t.split, versionVerdictRows(t.rows, finalLabel), finalLabel)}`,
      '  ',
    );
  }
  if (r.tables.some((t) => t.rows.some((row) => row.version.includes('=')))) {
    push('A=B: a phase accepted no candidate, so both versions are the same guidelines (one row).');
  }
  if (r.evalUnseen) {
    const { unseen, total } = r.evalUnseen;
    const evalSplit = r.tables.at(-1)?.split ?? 'evaluation';
    push(
      unseen > 0
        ? `${evalSplit} holds out task patterns: ${unseen} of ${total} tasks use one that no selection task uses`
        : `${evalSplit} holds out no task pattern from selection: every one of its ${total} tasks uses patterns selection saw`,
    );
  }
  const pc = r.pairCheck;
  if (pc) {
    push(`pair checked together on ${pc.split} (${pc.tasks} tasks), against the v0 pair:`);
    for (const o of pc.options) {
      const acc = `${(100 * o.accuracy).toFixed(1)}%, peak ${Math.round(o.peakTokens)}`;
      push(`  ${o.name} ${o.label}: ${acc}${o.name === 'v0' ? '' : `: ${o.reason}`}`, '  ');
    }
    push(`verdict pair: ${pc.verdict}`, '  ');
  }
  push(PEAK_NOTE);
  if (r.tables[0]?.provenance.simulated) push(SIMULATED_NOTE);
  push(`final guidelines: ${r.final.obs.id}, ${r.final.hist.id}`);
  if (r.chosen && (r.chosen.obs.id !== r.final.obs.id || r.chosen.hist.id !== r.final.hist.id))
    push(`chosen by the pair check: ${r.chosen.obs.id}, ${r.chosen.hist.id}`);
  push(activeLine(r), '  ');
  push(`new guideline files (${r.files.length}): ${r.files.join(', ') || 'none'}`, '  ');
  push(reviewLine(r), '  ');
  return `${out.join('\n')}\n${runIdLine(r.runId, db, opts)}`;
}

/** What a stage's decision lacked (infrastructure failures) and what a resume found since. */
function incompleteLine(s: OptimizeResult['stages'][number]): string | null {
  if (s.incomplete.length === 0) return null;
  const lacked = `decided without ${s.incomplete.length} rollout(s) the infrastructure lost`;
  const r = s.recheck;
  if (!r) return `${lacked}; --resume runs them again and rechecks the choice`;
  const still = r.missing > 0 ? `; ${r.missing} still lost` : '';
  if (r.agrees === null) return `${lacked}; rerun by --resume${still}`;
  const pick = r.accepted ?? `${s.parent} (no candidate)`;
  return r.agrees
    ? `${lacked}; rerun by --resume, the rule picks the same (${pick})${still}`
    : `${lacked}; rerun by --resume, the rule would now pick ${pick}, the run keeps ` +
        `${s.accepted ?? s.parent} as decided${still}`;
}

/** How to review what changed: a diff per compressor whose guideline changed, never a self-diff. */
export function reviewLine(r: Pick<OptimizeResult, 'start' | 'final'>): string {
  const diffs = (['obs', 'hist'] as const)
    .filter((kind) => r.start[kind].id !== r.final[kind].id)
    .map((kind) => `acon guidelines diff ${r.start[kind].id} ${r.final[kind].id}`);
  return diffs.length > 0
    ? `review them: acon guidelines log · ${diffs.join(' · ')}`
    : 'no guideline changed (no stage accepted a candidate): acon guidelines log lists the versions';
}

/** What is active after the run, and the command that undoes or does the promotion. */
function activeLine(r: OptimizeResult): string {
  const promote = (ids: string[]) => ids.map((id) => `acon guidelines promote ${id}`).join(' && ');
  if (r.promoted.length > 0) {
    const before = [r.start.obs.id, r.start.hist.id].filter((id) => !r.promoted.includes(id));
    return `now active: ${r.promoted.join(', ')}${before.length > 0 ? `; to undo: ${promote(before)}` : ''}`;
  }
  const chosen = r.chosen ?? r.final;
  if (r.pairCheck?.chosen === 'v0')
    return 'active guidelines unchanged (no guideline beat v0 on selection)';
  const changed = [chosen.obs.id, chosen.hist.id].filter(
    (id) => id !== r.start.obs.id && id !== r.start.hist.id,
  );
  return changed.length > 0
    ? `active guidelines unchanged (a trial run, or --no-promote); to use these: ${promote(changed)}`
    : 'active guidelines unchanged';
}

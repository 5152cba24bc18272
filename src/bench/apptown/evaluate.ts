import type { Evaluation } from '../../domain/index.js';
import { diffTables, type Row, type TableDiff } from './diff.js';
import { answerMatches } from './normalize.js';
import type { TableName, Tables } from './records.js';
import {
  changeKind,
  type Answer,
  type Change,
  type ChangeKind,
  type Matcher,
  type TaskEvaluation,
} from './task-schema.js';
import type { Completion } from './world.js';

type Check = Evaluation['details'][number];

function getPath(row: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (cur, key) =>
        cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined,
      row,
    );
}

function scalarEquals(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'number' && typeof actual === 'number')
    return Math.abs(expected - actual) < 1e-6;
  if (typeof expected === 'string' && typeof actual === 'string') {
    return expected.trim().toLowerCase() === actual.trim().toLowerCase();
  }
  return expected === actual;
}

/** One `where` entry against one row (semantics in task-schema.ts). */
export function matcherHolds(m: Matcher, actual: unknown): boolean {
  if (Array.isArray(m)) {
    if (!Array.isArray(actual) || actual.length !== m.length) return false;
    const left = [...actual];
    return m.every((e) => {
      const i = left.findIndex((a) => scalarEquals(e, a));
      if (i >= 0) left.splice(i, 1);
      return i >= 0;
    });
  }
  if (m !== null && typeof m === 'object') {
    const parts = Array.isArray(m.contains) ? m.contains : [m.contains];
    return (
      typeof actual === 'string' &&
      parts.every((p) => actual.toLowerCase().includes(p.toLowerCase()))
    );
  }
  return scalarEquals(m, actual);
}

function rowsOfKind(diff: TableDiff | undefined, kind: ChangeKind): Row[] {
  if (!diff) return [];
  if (kind === 'updated') return diff.updated.map((u) => u.after);
  return diff[kind];
}

function describeWhere(where: Record<string, Matcher>): string {
  const parts = Object.entries(where).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return parts.length > 0 ? ` where ${parts.join(', ')}` : '';
}

function checkChange(c: Change, diffs: Map<TableName, TableDiff>): Check {
  const { kind, count } = changeKind(c);
  const rows = rowsOfKind(diffs.get(c.table), kind);
  const matching = rows.filter((r) =>
    Object.entries(c.where).every(([k, m]) => matcherHolds(m, getPath(r, k))),
  );
  return {
    name: `${c.table}: ${count} row(s) ${kind}${describeWhere(c.where)}`,
    passed: matching.length === count,
    detail: `${matching.length} matching of ${rows.length} ${kind} row(s)`,
  };
}

/** A listed table may change only as listed: the number of rows of each kind must add up. */
function checkOnlyListed(table: TableName, changes: Change[], diff: TableDiff | undefined): Check {
  const expected: Record<ChangeKind, number> = { added: 0, removed: 0, updated: 0 };
  for (const c of changes) {
    const { kind, count } = changeKind(c);
    expected[kind] += count;
  }
  const actual: Record<ChangeKind, number> = {
    added: diff?.added.length ?? 0,
    removed: diff?.removed.length ?? 0,
    updated: diff?.updated.length ?? 0,
  };
  const kinds: ChangeKind[] = ['added', 'removed', 'updated'];
  const passed = kinds.every((k) => actual[k] === expected[k]);
  return {
    name: `${table}: no other changes`,
    passed,
    detail: kinds.map((k) => `${k} ${actual[k]}/${expected[k]}`).join(', '),
  };
}

export type ResolvedEvaluation = Omit<TaskEvaluation, 'answer'> & { answer?: Answer };

/**
 * Score an episode by its end state (ARCHITECTURE §5): the hand-in, the answer, every required
 * change, no extra changes in the listed tables, and no change anywhere else.
 */
export function evaluateState(
  spec: ResolvedEvaluation,
  initial: Tables,
  final: Tables,
  completion: Completion | null,
  /** Tables that may have changed; all of them when not given. */
  tables?: Iterable<TableName>,
): Evaluation {
  const diffs = diffTables(initial, final, tables);
  const details: Check[] = [];
  details.push({
    // Read as `complete_task: <detail>` in a rollout's reason, so the detail never repeats the name.
    name: 'complete_task',
    passed: completion !== null && completion.status === spec.status,
    detail:
      completion === null
        ? 'never called'
        : `called with status "${completion.status}", expected "${spec.status}"`,
  });
  if (spec.answer !== undefined) {
    const given = completion?.answer ?? null;
    details.push({
      name: 'answer',
      passed: completion !== null && answerMatches(spec.answer, given),
      detail: `expected ${JSON.stringify(spec.answer)}, got ${JSON.stringify(given)}`,
    });
  }
  for (const c of spec.changes) details.push(checkChange(c, diffs));
  const listed = [...new Set(spec.changes.map((c) => c.table))];
  for (const t of listed)
    details.push(
      checkOnlyListed(
        t,
        spec.changes.filter((c) => c.table === t),
        diffs.get(t),
      ),
    );
  const collateral = [...diffs.keys()].filter((t) => !listed.includes(t));
  details.push({
    name: 'no collateral damage',
    passed: collateral.length === 0,
    detail:
      collateral.length === 0
        ? 'no other table changed'
        : `unexpected changes in ${collateral.join(', ')}`,
  });
  const passed = details.filter((d) => d.passed).length;
  return { success: passed === details.length, score: passed / details.length, details };
}

import type { TableName, Tables } from './records.js';

export type Row = { id: number } & Record<string, unknown>;
export type TableDiff = {
  added: Row[];
  removed: Row[];
  updated: { before: Row; after: Row }[];
};

/**
 * Per-table changes between two states, matched by row id; unchanged tables are left out.
 * `tables` limits the comparison to tables that may have changed (World.touchedTables).
 */
export function diffTables(
  before: Tables,
  after: Tables,
  tables: Iterable<TableName> = Object.keys(before) as TableName[],
): Map<TableName, TableDiff> {
  const out = new Map<TableName, TableDiff>();
  for (const table of tables) {
    const diff = diffRows(before[table] as Row[], after[table] as Row[]);
    if (diff.added.length + diff.removed.length + diff.updated.length > 0) out.set(table, diff);
  }
  return out;
}

function diffRows(before: Row[], after: Row[]): TableDiff {
  const old = new Map(before.map((r) => [r.id, r]));
  const diff: TableDiff = { added: [], removed: [], updated: [] };
  const seen = new Set<number>();
  for (const row of after) {
    seen.add(row.id);
    const prev = old.get(row.id);
    if (!prev) diff.added.push(row);
    else if (!sameJson(prev, row)) diff.updated.push({ before: prev, after: row });
  }
  for (const row of before) if (!seen.has(row.id)) diff.removed.push(row);
  return diff;
}

/**
 * Whether two rows print the same as JSON (`JSON.stringify(a) === JSON.stringify(b)`, key order
 * included). A world copies each table it touches, so every row of it is compared at evaluation;
 * walking both rows is much cheaper than printing them (issue #16, bench:throughput). Rows that
 * look different are confirmed by printing, for the cases the walk does not model (a key set to
 * undefined, NaN).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return sameWalk(a, b) || JSON.stringify(a) === JSON.stringify(b);
}

function sameWalk(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameWalk(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const key = ka[i]!;
    if (key !== kb[i]) return false;
    if (!sameWalk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
      return false;
  }
  return true;
}

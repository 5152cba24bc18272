import { describe, expect, it } from 'vitest';
import { fitTable, terminalWidth, wrapLine, wrapNotes, type Column } from './fit-table.js';

type Row = { name: string; a: number; b: number; note: string };
const rows: Row[] = [
  { name: 'raw', a: 1, b: 22, note: 'a long free-text reason that explains a failure in detail' },
  { name: 'masking', a: 333, b: 4, note: 'short' },
];
const columns: Column<Row>[] = [
  { key: 'name', label: 'name', value: (r) => r.name },
  { key: 'a', label: 'a', note: 'alpha', value: (r) => String(r.a), align: 'right', priority: 1 },
  { key: 'b', label: 'b', note: 'beta', value: (r) => String(r.b), align: 'right', priority: 2 },
  { key: 'note', label: 'note', value: (r) => r.note, flex: true, minWidth: 10 },
];
const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));

describe('fitTable', () => {
  it('prints every column at full length when it fits, with the abbreviations as notes', () => {
    const t = fitTable(rows, columns, { width: 200 });
    expect(t.text).toMatchInlineSnapshot(`
      "name       a   b  note
      ───────  ───  ──  ─────────────────────────────────────────────────────────
      raw        1  22  a long free-text reason that explains a failure in detail
      masking  333   4  short
      "
    `);
    expect(t.notes).toEqual(['a = alpha', 'b = beta']);
  });

  it('shortens the flexible column with an ellipsis and says so', () => {
    const t = fitTable(rows, columns, { width: 40 });
    expect(widest(t.text)).toBeLessThanOrEqual(40);
    expect(t.text).toContain('…');
    expect(t.notes.at(-1)).toBe('long cells shortened with … (--wide shows everything)');
  });

  it('drops the lowest-priority columns first when shortening is not enough, and names them', () => {
    const t = fitTable(rows, columns, { width: 24 });
    expect(widest(t.text)).toBeLessThanOrEqual(24);
    expect(t.text.split('\n')[0]).toBe('name      b  note');
    expect(t.notes.at(-1)).toBe(
      'not shown: a; long cells shortened with … (--wide shows everything)',
    );
  });

  it('shows everything with wide, however narrow the terminal', () => {
    const t = fitTable(rows, columns, { width: 10, wide: true });
    expect(t.text).toContain('a long free-text reason that explains a failure in detail');
    expect(t.text.split('\n')[0]).toContain(' a ');
  });

  it('hides a column that has no value in any row (metrics a run did not record)', () => {
    const extra: Column<Row> = { key: 'f1', label: 'F1', value: () => undefined, priority: 0 };
    const t = fitTable(rows, [...columns, extra], { width: 200 });
    expect(t.text).not.toContain('F1');
  });
});

describe('terminalWidth', () => {
  it('takes a terminal’s columns, else $COLUMNS, else 100', () => {
    expect(terminalWidth({ isTTY: true, columns: 80 }, { COLUMNS: '120' })).toBe(80);
    expect(terminalWidth({ isTTY: false }, { COLUMNS: '120' })).toBe(120);
    expect(terminalWidth({ isTTY: false }, {})).toBe(100);
    expect(terminalWidth({ isTTY: false }, { COLUMNS: 'wide' })).toBe(100);
  });
});

describe('wrapNotes', () => {
  it('joins notes with a dot and keeps every line within the width', () => {
    const lines = wrapNotes(['a = alpha', 'b = beta', 'c = a very long explanation of c'], 24);
    expect(lines[0]).toBe('a = alpha · b = beta');
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(24);
  });
});

describe('wrapLine', () => {
  it('keeps an indented line’s indentation on each of its pieces (rollout show of JSON)', () => {
    const line = '    "description": "Documentation of every app and API: what exists"';
    expect(wrapLine(line, 40)).toEqual([
      '    "description": "Documentation of',
      '    every app and API: what exists"',
    ]);
  });

  it('leaves an unindented line flush left and every piece within the width', () => {
    const lines = wrapLine('one two three four five six seven', 10);
    expect(lines[0]).toBe('one two');
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(10);
  });
});

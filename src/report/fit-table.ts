/**
 * Result tables that fit the terminal (issue 15): columns come from a registry with short
 * labels; abbreviations are explained in a footnote; when the table is too wide, the columns
 * with the lowest priority are dropped (and named in the footnote) and then the one flexible
 * column is shortened with an ellipsis. `wide` shows every column at full length.
 */

/** One column of a result table. */
export type Column<R> = {
  /** Stable key (also the `--json` field it shows, where there is one). */
  key: string;
  /** Short header, e.g. `Δpeak`. */
  label: string;
  /** What the label means, for the footnote; omit when the label needs no explanation. */
  note?: string;
  /** The cell text; `undefined` when the row has no value (a column empty in every row is hidden). */
  value: (row: R) => string | undefined;
  /** @default 'left' */
  align?: 'left' | 'right';
  /**
   * Higher stays longer when the table must shrink; columns without a priority are never
   * dropped. Other metrics (issues 11–14) add columns with a priority below the core ones.
   */
  priority?: number;
  /** The column that is shortened with `…` when dropping is not enough (at most one a table). */
  flex?: boolean;
  /** A flexible column keeps at least this many characters; columns are dropped first. @default 8 */
  minWidth?: number;
  /** Shown only with `--wide`. */
  wideOnly?: boolean;
};

export type FitOptions = {
  /** Terminal width in columns. @default 100 */
  width?: number;
  /** Every column, nothing shortened. @default false */
  wide?: boolean;
};

const GAP = '  ';
const ELLIPSIS = '…';
/** A flexible column is never shortened below this many characters. */
const MIN_FLEX = 8;

/** Display width; every character we print is one column wide (no East Asian wide glyphs). */
const width = (s: string) => [...s].length;

function clip(s: string, w: number): string {
  const chars = [...s];
  return chars.length <= w ? s : `${chars.slice(0, Math.max(0, w - 1)).join('')}${ELLIPSIS}`;
}

/** The terminal width: stdout's columns, else $COLUMNS, else 100 (the width the issue names). */
export function terminalWidth(
  stream: { columns?: number; isTTY?: boolean } = process.stdout,
  env: Record<string, string | undefined> = process.env,
): number {
  if (stream.isTTY && stream.columns && stream.columns > 0) return stream.columns;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 100;
}

export type FittedTable = {
  /** Header, rule and rows, each line ending in `\n`. */
  text: string;
  /** Footnote lines: abbreviations of the shown columns, then what was left out. */
  notes: string[];
};

/** Renders rows under `columns`, fitting `width` unless `wide`. */
export function fitTable<R>(rows: R[], columns: Column<R>[], opts: FitOptions = {}): FittedTable {
  const limit = opts.width ?? 100;
  const wide = opts.wide ?? false;
  let shown = columns.filter(
    (c) => (wide || !c.wideOnly) && rows.some((r) => c.value(r) !== undefined),
  );
  const cells = (c: Column<R>) => rows.map((r) => c.value(r) ?? '—');
  const natural = new Map(
    shown.map((c) => [c.key, Math.max(width(c.label), ...cells(c).map(width))]),
  );
  const total = (cols: Column<R>[], flexWidth?: number) =>
    cols.reduce(
      (s, c) => s + (c.flex && flexWidth !== undefined ? flexWidth : natural.get(c.key)!),
      0,
    ) +
    GAP.length * Math.max(0, cols.length - 1);

  const dropped: Column<R>[] = [];
  let flexWidth: number | undefined;
  if (!wide) {
    const flex = shown.find((c) => c.flex);
    const minFlex = flex?.minWidth ?? MIN_FLEX;
    const floor = (cols: Column<R>[]) =>
      total(cols, flex ? Math.min(natural.get(flex.key)!, minFlex) : undefined);
    // Drop the lowest-priority columns while even a minimal flexible column would not fit.
    while (floor(shown) > limit) {
      const candidates = shown.filter((c) => c.priority !== undefined);
      if (candidates.length === 0) break;
      const victim = candidates.reduce((a, b) => (b.priority! < a.priority! ? b : a));
      dropped.push(victim);
      shown = shown.filter((c) => c !== victim);
    }
    // A later drop may have made room for a column dropped earlier (a lower priority but narrower).
    for (const c of [...dropped].sort((a, b) => b.priority! - a.priority!)) {
      const withC = columns.filter((x) => x === c || shown.includes(x));
      if (floor(withC) <= limit) {
        shown = withC;
        dropped.splice(dropped.indexOf(c), 1);
      }
    }
    if (flex && shown.includes(flex) && total(shown) > limit) {
      flexWidth = Math.max(minFlex, natural.get(flex.key)! - (total(shown) - limit));
    }
  }
  const widthOf = (c: Column<R>) =>
    c.flex && flexWidth !== undefined ? flexWidth : natural.get(c.key)!;
  const line = (texts: string[]) =>
    shown
      .map((c, i) => {
        const t = clip(texts[i] ?? '', widthOf(c));
        const pad = ' '.repeat(widthOf(c) - width(t));
        return c.align === 'right' ? pad + t : t + pad;
      })
      .join(GAP)
      .trimEnd();
  const body = [
    line(shown.map((c) => c.label)),
    line(shown.map((c) => '─'.repeat(widthOf(c)))),
    ...rows.map((r) => line(shown.map((c) => c.value(r) ?? '—'))),
  ];
  const notes = shown.filter((c) => c.note).map((c) => `${c.label} = ${c.note}`);
  const hidden = [...dropped, ...columns.filter((c) => c.wideOnly && !wide)].filter((c) =>
    rows.some((r) => c.value(r) !== undefined),
  );
  if (hidden.length > 0 || flexWidth !== undefined) {
    const what = hidden.length > 0 ? `not shown: ${hidden.map((c) => c.label).join(', ')}` : '';
    const clipped = flexWidth !== undefined ? 'long cells shortened with …' : '';
    notes.push(`${[what, clipped].filter(Boolean).join('; ')} (--wide shows everything)`);
  }
  return { text: `${body.join('\n')}\n`, notes };
}

/**
 * Wraps footnote parts (`a = b`) into lines of at most `limit` columns, joined with ` · `, so
 * the footnote fits too.
 */
export function wrapNotes(parts: string[], limit: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const p of parts) {
    if (cur === '') cur = p;
    else if (width(cur) + 3 + width(p) <= limit) cur = `${cur} · ${p}`;
    else {
      lines.push(cur);
      cur = p;
    }
  }
  if (cur) lines.push(cur);
  return lines.flatMap((l) => wrapLine(l, limit));
}

/**
 * Breaks one over-long line at spaces. A line's leading indentation (pretty-printed JSON in an
 * observation) starts each of its pieces, so the nesting still reads (issue #24); an indent of
 * half the width or more is not repeated.
 */
export function wrapLine(text: string, limit: number): string[] {
  if (width(text) <= limit) return [text];
  const indent = /^ */.exec(text)![0];
  if (indent.length > 0 && indent.length < limit / 2) {
    return wrapLine(text.slice(indent.length), limit - indent.length).map((l) => indent + l);
  }
  const out: string[] = [];
  let cur = '';
  for (const word of text.split(' ')) {
    if (cur === '') cur = word;
    else if (width(cur) + 1 + width(word) <= limit) cur = `${cur} ${word}`;
    else {
      out.push(cur);
      cur = word;
    }
  }
  if (cur) out.push(cur);
  return out.flatMap((l) => (width(l) <= limit ? [l] : chunk(l, limit)));
}

function chunk(s: string, n: number): string[] {
  const chars = [...s];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += n) out.push(chars.slice(i, i + n).join(''));
  return out;
}

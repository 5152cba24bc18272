import pc from 'picocolors';
import { CONDITION_METRIC_DEFINITIONS as DEF } from '../metrics/index.js';
import { fitTable, wrapNotes, type Column, type FitOptions } from './fit-table.js';
import type {
  GuidelineKind,
  GuidelineMetrics,
  MetricValue,
  StoredGuideline,
} from '../guidelines/index.js';

/** The active id of each kind (as `GuidelineStore.activeId` reports it). */
export type ActiveIds = Partial<Record<GuidelineKind, string>>;

type Colors = ReturnType<typeof pc.createColors>;

const NONE = '-';

export function formatAccuracy(value: number | undefined): string {
  return value === undefined ? NONE : `${(value * 100).toFixed(1)}%`;
}

export function formatTokens(value: number | undefined): string {
  return value === undefined ? NONE : Math.round(value).toLocaleString('en-US');
}

function formatNumber(value: number | undefined, digits = 1): string {
  return value === undefined ? NONE : value.toFixed(digits);
}

/** `2026-11-22T03:16:09.123Z` → `2026-11-22 03:16`; a plain date stays as it is. */
export function formatCreated(created: string): string {
  return created.length > 10 ? created.slice(0, 16).replace('T', ' ') : created;
}

function formatMetricValue(value: MetricValue): string {
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
}

/** `accuracy 62.0% · peak tokens 3,112 · steps 14.2 · cost $0.0123 · split dev · tasks 20 · …` */
export function formatMetrics(metrics: GuidelineMetrics): string {
  const { accuracy, peakTokens, steps, costUsd, split, tasks, ...rest } = metrics;
  const parts: string[] = [];
  if (accuracy !== undefined) parts.push(`accuracy ${formatAccuracy(accuracy)}`);
  if (peakTokens !== undefined) parts.push(`peak tokens ${formatTokens(peakTokens)}`);
  if (steps !== undefined) parts.push(`steps ${formatNumber(steps)}`);
  if (costUsd !== undefined) parts.push(`cost $${costUsd.toFixed(4)}`);
  if (split !== undefined) parts.push(`split ${split}`);
  if (tasks !== undefined) parts.push(`tasks ${tasks}`);
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) parts.push(`${key} ${formatMetricValue(value)}`);
  }
  return parts.length > 0 ? parts.join(' · ') : NONE;
}

type Row = { version: StoredGuideline; tree: string };

/** Depth-first order with tree-drawing prefixes (`├─ `, `└─ `, `│  `); orphans become roots. */
function treeRows(versions: StoredGuideline[]): Row[] {
  const ids = new Set(versions.map((v) => v.id));
  const children = new Map<string | null, StoredGuideline[]>();
  for (const v of versions) {
    const parent = v.parent !== null && ids.has(v.parent) ? v.parent : null;
    const list = children.get(parent) ?? [];
    list.push(v);
    children.set(parent, list);
  }
  const rows: Row[] = [];
  const visit = (v: StoredGuideline, prefix: string, cont: string, seen: Set<string>) => {
    if (seen.has(v.id)) return;
    seen.add(v.id);
    rows.push({ version: v, tree: prefix });
    const kids = children.get(v.id) ?? [];
    kids.forEach((kid, i) => {
      const last = i === kids.length - 1;
      visit(kid, cont + (last ? '└─ ' : '├─ '), cont + (last ? '   ' : '│  '), seen);
    });
  };
  const seen = new Set<string>();
  for (const root of children.get(null) ?? []) visit(root, '', '', seen);
  return rows;
}

type LogRow = { version: StoredGuideline; tree: string; active: boolean };

const LOG_COLUMNS: Column<LogRow>[] = [
  { key: 'active', label: ' ', value: (r) => (r.active ? '*' : ' ') },
  { key: 'id', label: 'VERSION', value: (r) => r.tree + r.version.id },
  { key: 'phase', label: 'PHASE', value: (r) => r.version.phase },
  { key: 'status', label: 'STATUS', value: (r) => r.version.status },
  {
    key: 'accuracy',
    label: 'ACC%',
    note: DEF.accuracy,
    value: (r) => formatAccuracy(r.version.metrics.accuracy).replace('%', ''),
    align: 'right',
  },
  {
    key: 'peakTokens',
    label: 'PEAK',
    note: DEF.meanPeakTokens,
    value: (r) => formatTokens(r.version.metrics.peakTokens),
    align: 'right',
  },
  {
    key: 'steps',
    label: 'STEPS',
    value: (r) => formatNumber(r.version.metrics.steps),
    align: 'right',
    priority: 2,
  },
  {
    key: 'created',
    label: 'CREATED',
    value: (r) => formatCreated(r.version.created),
    priority: 1,
  },
  { key: 'run', label: 'RUN', value: (r) => r.version.run ?? NONE, flex: true },
];

/**
 * The version tree of each kind: one line a version, indented under its parent, with phase,
 * status, accuracy, peak tokens, steps, creation time and run; the active version is marked `*`.
 * Fits `options.width` (default 100) unless `options.wide`.
 */
export function renderGuidelineLog(
  versions: StoredGuideline[],
  active: ActiveIds,
  options: { color: boolean } & FitOptions,
): string {
  const c = pc.createColors(options.color);
  const sections: string[] = [];
  const notes = new Set<string>();
  for (const kind of ['obs', 'hist'] as const) {
    const ofKind = versions.filter((v) => v.kind === kind);
    if (ofKind.length === 0) continue;
    const activeId = active[kind];
    const rows = treeRows(ofKind).map((r) => ({ ...r, active: r.version.id === activeId }));
    const table = fitTable(rows, LOG_COLUMNS, options);
    for (const n of table.notes) notes.add(n);
    const [header = '', rule = '', ...body] = table.text.trimEnd().split('\n');
    const title = `${kind === 'obs' ? 'observation' : 'history'} guidelines (${kind})`;
    const lines = [
      c.bold(`${title}, active: ${activeId ?? NONE}`),
      c.dim(header),
      c.dim(rule),
      ...rows.map((r, i) => {
        const text = body[i] ?? '';
        if (r.active) return c.green(c.bold(text));
        if (r.version.status === 'rejected') return c.dim(text);
        return text;
      }),
    ];
    sections.push(lines.join('\n'));
  }
  if (sections.length === 0) return 'no guideline versions\n';
  const limit = options.wide ? Number.POSITIVE_INFINITY : (options.width ?? 100);
  const foot = wrapNotes(['* = active', ...notes], limit).map((l) => c.dim(l));
  return `${sections.join('\n\n')}\n${foot.join('\n')}\n`;
}

/** `log --json`: every version without its text, with an `active` flag. */
export function guidelineLogJson(versions: StoredGuideline[], active: ActiveIds) {
  return versions.map(({ text: _text, ...v }) => ({ ...v, active: active[v.kind] === v.id }));
}

/** `show`: a summary of the front matter, then the text. */
export function renderGuidelineShow(
  g: StoredGuideline,
  options: { color: boolean; active: boolean; path: string },
): string {
  const c: Colors = pc.createColors(options.color);
  const field = (name: string, value: string) => `  ${c.dim(name.padEnd(11))}${value}`;
  const lines = [
    c.bold(`${g.id}${options.active ? c.green(' (active)') : ''}`),
    field('kind', g.kind === 'obs' ? 'obs (observation compressor)' : 'hist (history compressor)'),
    field('parent', g.parent ?? NONE),
    field('phase', g.phase),
    field('status', g.status),
    field('run', g.run ?? NONE),
    field('created', g.created),
    field('file', options.path),
    field('metrics', formatMetrics(g.metrics)),
  ];
  if (g.rationale !== undefined) lines.push(field('rationale', g.rationale.trim()));
  if (g.analyses !== undefined && g.analyses.length > 0) {
    lines.push(field('analyses', `${g.analyses.length}`));
    for (const a of g.analyses) lines.push(`    - ${a.trim().replace(/\n/g, '\n      ')}`);
  }
  lines.push('', c.dim(`─── text (${g.text.length} characters) ───`), g.text, '');
  return lines.join('\n');
}

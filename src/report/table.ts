import type { Provenance } from '../domain/index.js';
import { fitTable, wrapLine, wrapNotes, type Column, type FitOptions } from './fit-table.js';
import type { ConditionMetrics } from '../domain/index.js';
import { CONDITION_METRIC_DEFINITIONS as DEF } from '../metrics/index.js';

/**
 * A recorded `provider/model` as people read it. The sim provider records the configured model
 * (`sim/gpt-4.1`) only to price its calls; printed as such it reads as if GPT-4.1 ran (issue #24),
 * so it prints `sim (priced as gpt-4.1)`.
 */
export function modelLabel(model: string): string {
  return model.startsWith('sim/') ? `sim (priced as ${model.slice('sim/'.length)})` : model;
}

/** The distinct models of a run's roles as people read them, agent's first. */
export function modelsText(models: Record<string, string>): string {
  return [...new Set(Object.values(models))].map(modelLabel).join(', ');
}

export function provenanceLine(p: Provenance): string {
  const agent = modelLabel(p.models.agent ?? '?');
  const comp = modelLabel(p.models.obs_compressor ?? '?');
  const tag = p.simulated ? 'SIMULATED — ' : '';
  // The run id is printed after the table, so the same command twice prints the same table.
  const tokens = tokensText(p);
  return `${tag}${p.bench}/${p.split} · provider ${p.provider} · agent ${agent} · compressor ${comp}${tokens}`;
}

/**
 * ` · tokens hf:model/tokenizer.json`, and with a server tokenizer whose counts were not all its
 * own ` · tokens server (12 of 340 counts estimated in o200k)`: a figure says what it counted in.
 */
export function tokensText(p: Pick<Provenance, 'tokenizer' | 'tokenizerEstimates'>): string {
  if (!p.tokenizer) return '';
  const e = p.tokenizerEstimates;
  const estimated =
    e && e.estimated > 0
      ? ` (${int(e.estimated)} of ${int(e.counted)} counts estimated in o200k)`
      : '';
  return ` · tokens ${p.tokenizer}${estimated}`;
}

export const PEAK_NOTE = `peak = ${DEF.meanPeakTokens}`;
export const SIMULATED_NOTE =
  'SIMULATED: produced by the offline sim provider, not a real model; use --provider openai for real results.';

/** `12.3` (a fraction shown in percent, one decimal; the header says %). */
export const pct1 = (x: number) => (100 * x).toFixed(1);
/** `67.6 [52.9–82.4]`: accuracy in percent with its 95% CI. */
export const accWithCi = (acc: number, ci: readonly [number, number]) =>
  `${pct1(acc)} [${pct1(ci[0])}–${pct1(ci[1])}]`;
/** Signed change: a reduction of 18% prints `−18.1%`; no change (raw against itself) `0.0%`. */
export const reductionPct = (x: number | null) =>
  x === null
    ? undefined
    : pct1(Math.abs(x)) === '0.0'
      ? '0.0%'
      : `${x > 0 ? '−' : '+'}${pct1(Math.abs(x))}%`;
export const int = (x: number) => Math.round(x).toLocaleString('en-US');
export const usd = (x: number) => `$${x.toFixed(4)}`;

/**
 * The columns of every per-condition table (compare, run, optimize's final tables). Another
 * metric becomes a column here, once: give it a short label, a note and a priority below 5 so
 * it is the first to go when the terminal is narrow (`--wide` always shows it).
 */
export function conditionColumns<R extends ConditionMetrics>(): Column<R>[] {
  return [...outcomeColumns<R>(), ...tokenColumns<R>(), ...costColumns<R>()];
}

/** Which condition, on how many tasks, and how well it did. */
function outcomeColumns<R extends ConditionMetrics>(): Column<R>[] {
  return [
    // Condition labels name guideline versions (acon[obs-0002,hist-0001]); columns go before they shorten.
    { key: 'condition', label: 'condition', value: (r) => r.condition, flex: true, minWidth: 26 },
    { key: 'tasks', label: 'n', note: DEF.tasks, value: (r) => String(r.tasks), align: 'right' },
    {
      key: 'accuracy',
      label: 'acc% [95% CI]',
      note: `${DEF.accuracy}, ${DEF.accuracyCi}`,
      value: (r) => accWithCi(r.accuracy, r.accuracyCi),
      align: 'right',
    },
    {
      // Only benchmarks whose tasks form scenarios (AppWorld) have it; elsewhere it is hidden.
      key: 'sgc',
      label: 'SGC%',
      note: DEF.sgc,
      value: (r) => (r.sgc === undefined ? undefined : pct1(r.sgc)),
      align: 'right',
    },
    {
      // QA benchmarks only (hidden elsewhere: every row is null).
      key: 'exactMatch',
      label: 'EM',
      note: DEF.exactMatch,
      value: (r) => (r.exactMatch === null ? undefined : r.exactMatch.toFixed(3)),
      align: 'right',
      priority: 10,
    },
    {
      key: 'f1',
      label: 'F1',
      note: DEF.f1,
      value: (r) => (r.f1 === null ? undefined : r.f1.toFixed(3)),
      align: 'right',
      priority: 10,
    },
    {
      // The Pareto marker (issue #24); --json carries `pareto` too.
      key: 'pareto',
      label: 'P',
      note: DEF.pareto,
      value: (r) => (r.pareto === undefined ? undefined : r.pareto ? '★' : ''),
      priority: 9,
    },
  ];
}

/** How large the agent's context got, and how long the rollouts ran. */
function tokenColumns<R extends ConditionMetrics>(): Column<R>[] {
  return [
    {
      key: 'meanPeakTokens',
      label: 'peak',
      value: (r) => int(r.meanPeakTokens),
      align: 'right',
    },
    {
      key: 'medianPeakTokens',
      label: 'p50 peak',
      note: DEF.medianPeakTokens,
      value: (r) => int(r.medianPeakTokens),
      align: 'right',
      priority: 2,
    },
    {
      key: 'meanPeakPromptTokens',
      label: 'peak+sys',
      note: DEF.meanPeakPromptTokens,
      value: (r) => (r.meanPeakPromptTokens == null ? undefined : int(r.meanPeakPromptTokens)),
      align: 'right',
      wideOnly: true,
    },
    {
      key: 'peakReductionVsRaw',
      label: 'Δpeak',
      note: DEF.peakReductionVsRaw,
      value: (r) => reductionPct(r.peakReductionVsRaw),
      align: 'right',
      priority: 9,
    },
    {
      key: 'meanSteps',
      label: 'steps',
      note: DEF.meanSteps,
      value: (r) => r.meanSteps.toFixed(1),
      align: 'right',
      priority: 8,
    },
    {
      key: 'stepsVsRaw',
      label: '×steps',
      note: DEF.stepsVsRaw,
      value: (r) => (r.stepsVsRaw === null ? undefined : stepsRatio(r)),
      align: 'right',
      priority: 5,
    },
  ];
}

/** What the condition cost, and what its compressors did. */
function costColumns<R extends ConditionMetrics>(): Column<R>[] {
  return [
    {
      key: 'costPerTask',
      label: 'billed$',
      note: DEF.costPerTask,
      value: (r) => usd(r.costPerTask),
      align: 'right',
      priority: 7,
    },
    {
      key: 'fullCostPerTask',
      label: 'full$',
      note: DEF.fullCostPerTask,
      value: (r) => (r.fullCostPerTask === null ? undefined : usd(r.fullCostPerTask)),
      align: 'right',
      priority: 6,
    },
    {
      key: 'meanDependency',
      label: 'dep M',
      note: DEF.meanDependency,
      value: (r) => (r.meanDependency === null ? undefined : (r.meanDependency / 1e6).toFixed(2)),
      align: 'right',
      priority: 5,
    },
    {
      key: 'compressorCostShare',
      label: 'comp%',
      note: DEF.compressorCostShare,
      value: (r) => pct1(r.compressorCostShare),
      align: 'right',
      priority: 4,
    },
    {
      key: 'eventsPerTask',
      label: 'ev/task',
      note: DEF.eventsPerTask,
      value: (r) => r.eventsPerTask.toFixed(1),
      align: 'right',
      priority: 3,
    },
    ...failureColumns<R>(),
  ];
}

/**
 * What went wrong without stopping a rollout (issue #54): shown only where it happened (a column
 * empty in every row is hidden) and never dropped for width, because a peak or an accuracy read
 * without them can mislead.
 */
function failureColumns<R extends ConditionMetrics>(): Column<R>[] {
  return [
    {
      key: 'failedCompressions',
      label: 'comp fail',
      note: DEF.failedCompressions,
      value: (r) =>
        r.failedCompressions > 0 ? `${r.failedCompressions}/${r.compressionEvents}` : undefined,
      align: 'right',
    },
    {
      key: 'contextFallbacks',
      label: 'ctx limit',
      note: DEF.contextFallbacks,
      value: (r) => (r.contextFallbacks > 0 ? `${r.contextFallbacks}/${r.tasks}` : undefined),
      align: 'right',
    },
  ];
}

/** Provenance line, table and footnote, every line within `opts.width` unless `opts.wide`. */
export function resultTable<R>(
  rows: R[],
  columns: Column<R>[],
  p: Provenance | null,
  opts: FitOptions & { extraNotes?: string[]; simulatedNote?: boolean } = {},
): string {
  const limit = opts.wide ? Number.POSITIVE_INFINITY : (opts.width ?? 100);
  const { text, notes } = fitTable(rows, columns, opts);
  const head = p ? wrapLine(provenanceLine(p), limit) : [];
  const foot = wrapNotes([...notes, ...(opts.extraNotes ?? [])], limit);
  if (p?.simulated && opts.simulatedNote !== false) foot.push(...wrapLine(SIMULATED_NOTE, limit));
  return [...head, text.trimEnd(), ...foot].join('\n') + '\n';
}

/**
 * The comparison table: accuracy with its 95% bootstrap CI, peak tokens (system prompt excluded)
 * and their reduction vs raw, steps (and elongation vs raw), cost per task, compressor share,
 * compression events a task. Fits `opts.width` (default 100) unless `opts.wide`.
 */
export function conditionTable(rows: ConditionMetrics[], p: Provenance, opts: FitOptions = {}) {
  return resultTable(rows, conditionColumns(), p, { ...opts, extraNotes: [PEAK_NOTE] });
}

/** `head` and `tail` as one line joined by `joint` when it fits the width, else as two lines. */
export function closingLine(head: string, joint: string, tail: string, opts: FitOptions = {}) {
  const limit = opts.wide ? Number.POSITIVE_INFINITY : (opts.width ?? 100);
  const one = `${head}${joint}${tail}`;
  return [...one].length <= limit ? `${one}\n` : `${head}\n${tail}\n`;
}

/** The closing line of every result: where it is stored and the run id (split in two when too long). */
export function runIdLine(runId: string, db: string, opts: FitOptions = {}): string {
  return closingLine(`stored in ${db}`, ' ', `as run ${runId}`, opts);
}

/** `verdict dev: …` wrapped to the width, continuation lines indented. */
export function verdictText(verdict: string, opts: FitOptions = {}): string {
  if (!verdict) return '';
  const limit = opts.wide ? Number.POSITIVE_INFINITY : (opts.width ?? 100);
  const lines = wrapLine(`verdict ${verdict}`, limit - 2);
  return `${lines.map((l, i) => (i === 0 ? l : `  ${l}`)).join('\n')}\n`;
}

/**
 * The steps ratio with the rollouts that ended at the step cap as a second number ("1.25×, 22/40
 * at the cap"), when any did: their steps are the cap's, not the agent's (issue 61).
 */
function stepsRatio(r: ConditionMetrics): string {
  const ratio = `${(r.stepsVsRaw ?? 0).toFixed(2)}×`;
  const atCap = r.atStepCap ?? 0;
  return atCap > 0 ? `${ratio}, ${atCap}/${r.tasks} at the cap` : ratio;
}

import type { ReplayMetrics } from '../domain/index.js';
import { REPLAY_METRIC_DEFINITIONS as REPLAY_DEF } from '../metrics/index.js';
import { fitTable, wrapLine, type Column, type FitOptions } from './fit-table.js';
import { int, modelLabel, pct1, tokensText } from './table.js';

/** One scored guideline pair of a replay (acon replay, the trace stages of acon optimize). */
export type ReplayViewRow = { label: string; obs: string; hist: string; metrics: ReplayMetrics };

/** Who produced a replay's numbers: never accuracy, always labelled as replay metrics. */
export type ReplayProvenance = {
  source: string;
  traces: number;
  provider: string;
  models: Record<string, string>;
  simulated: boolean;
  tokenizer?: string | undefined;
  tokenizerEstimates?: { estimated: number; counted: number } | undefined;
};

const share = (x: number | null) => (x === null ? undefined : pct1(x));

const COLUMNS: Column<ReplayViewRow>[] = [
  { key: 'label', label: 'pair', value: (r) => r.label, flex: true },
  { key: 'obs', label: 'obs', value: (r) => r.obs, priority: 3 },
  { key: 'hist', label: 'hist', value: (r) => r.hist, priority: 3 },
  {
    key: 'agreement',
    label: 'agree%',
    note: REPLAY_DEF.agreement,
    value: (r) => share(r.metrics.agreement),
    align: 'right',
  },
  {
    key: 'compressedSteps',
    label: 'steps',
    note: REPLAY_DEF.compressedSteps,
    value: (r) => `${r.metrics.compressedSteps}/${r.metrics.steps}`,
    align: 'right',
    priority: 4,
  },
  {
    key: 'probeRecall',
    label: 'probe%',
    note: REPLAY_DEF.probeRecall,
    value: (r) => share(r.metrics.probeRecall),
    align: 'right',
  },
  {
    key: 'peakTokens',
    label: 'peak',
    note: REPLAY_DEF.peakTokens,
    value: (r) => int(r.metrics.peakTokens),
    align: 'right',
  },
  {
    key: 'fullPeakTokens',
    label: 'full',
    note: REPLAY_DEF.fullPeakTokens,
    value: (r) => int(r.metrics.fullPeakTokens),
    align: 'right',
    priority: 2,
  },
  {
    key: 'compressions',
    label: 'comp',
    note: REPLAY_DEF.compressions,
    value: (r) =>
      `${r.metrics.compressions}${r.metrics.failedCompressions > 0 ? ` (${r.metrics.failedCompressions})` : ''}`,
    align: 'right',
    priority: 4,
  },
];

export function replayProvenanceLine(p: ReplayProvenance): string {
  const tag = p.simulated ? 'SIMULATED — ' : '';
  const agent = modelLabel(p.models.agent ?? '?');
  const comp = modelLabel(p.models.obs_compressor ?? '?');
  return `${tag}replay of ${p.source} (${p.traces} conversations) · provider ${p.provider} · agent ${agent} · compressor ${comp}${tokensText(p)}`;
}

/** The replay table: provenance line, one row a pair, footnotes. */
export function replayTable(
  rows: ReplayViewRow[],
  p: ReplayProvenance,
  opts: FitOptions = {},
): string {
  const width = opts.width ?? 100;
  const table = fitTable(rows, COLUMNS, opts);
  const fit = (line: string) => (opts.wide ? [line] : wrapLine(line, width));
  const notes = [
    'replay metrics, not accuracy: they say whether the next step changes, not whether the task would still succeed',
    ...table.notes,
  ];
  return [...fit(replayProvenanceLine(p)), table.text.trimEnd(), ...notes.flatMap(fit)].join('\n');
}

/**
 * One line: the pair with the highest agreement (then probe recall, then fewer peak tokens)
 * against the first pair listed (the reference, e.g. v0).
 */
export function replayVerdict(rows: readonly ReplayViewRow[]): string {
  if (rows.length === 0) return 'verdict: no pair replayed';
  const score = (r: ReplayViewRow) => [
    r.metrics.agreement ?? 1,
    r.metrics.probeRecall ?? 1,
    -r.metrics.peakTokens,
  ];
  const better = (a: ReplayViewRow, b: ReplayViewRow) => {
    const [x, y] = [score(a), score(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
    return false;
  };
  const best = rows.reduce((b, r) => (better(r, b) ? r : b), rows[0]!);
  const ref = rows[0]!;
  const m = (r: ReplayViewRow) =>
    `agreement ${share(r.metrics.agreement) ?? '—'}%, probe recall ${share(r.metrics.probeRecall) ?? '—'}%, peak ${int(r.metrics.peakTokens)}`;
  if (rows.length === 1 || best === ref) {
    return `verdict: ${ref.label} scores best (${m(ref)})${rows.length > 1 ? '; no other pair beats it' : ''}`;
  }
  return `verdict: ${best.label} scores best (${m(best)}) against ${ref.label} (${m(ref)})`;
}

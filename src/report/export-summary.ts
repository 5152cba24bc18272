import pc from 'picocolors';
import { fitTable, type Column, type FitOptions, modelLabel } from './index.js';
import type { LintReport, ExportSummary } from '../export/index.js';

const int = (n: number) => n.toLocaleString('en-US');
const counts = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([k, n]) => `${k} ${int(n)}`)
    .join(', ') || 'none';

type TaskRow = { task: string; split: string; examples: string; tokens: string };

const TASK_COLUMNS: Column<TaskRow>[] = [
  { key: 'task', label: 'task', value: (r) => r.task, flex: true },
  { key: 'split', label: 'split', value: (r) => r.split },
  { key: 'examples', label: 'examples', value: (r) => r.examples, align: 'right' },
  { key: 'tokens', label: 'tokens', value: (r) => r.tokens, align: 'right' },
];

/** The export summary as text: provenance, files, a per-task table, totals and what was left out. */
export function renderExportSummary(
  s: ExportSummary,
  opts: { color?: boolean } & FitOptions = {},
): string {
  const c = opts.color ? pc : pc.createColors(false);
  const lines: string[] = [];
  const tag = s.simulated ? `${c.yellow('SIMULATED')} — ` : '';
  lines.push(
    `${tag}run ${s.runId} (${s.runKind}, ${s.bench}) · provider ${s.provider} · ${s.llmRole} ${modelLabel(s.models[s.llmRole] ?? '?')}`,
  );
  if (s.simulated) {
    lines.push(
      c.yellow("The source run used the simulated LLM: these are not a real teacher's outputs."),
    );
  }
  lines.push(
    `role ${s.role} · format ${s.format}${s.conditions ? ` · conditions ${s.conditions.join(', ')}` : ''}` +
      ` · split ${s.splits?.join(', ') ?? 'all'} · guidelines ${s.guidelines?.join(', ') ?? 'any'}`,
  );

  const rows: TaskRow[] = s.byTask.map((t) => ({
    task: t.taskId,
    split: t.split,
    examples: int(t.examples),
    tokens: int(t.tokens),
  }));
  rows.push({
    task: 'total',
    split: s.files.val ? `${int(s.examples.train)} train / ${int(s.examples.val)} val` : 'train',
    examples: int(s.examples.total),
    tokens: int(s.tokens.total),
  });
  const { text, notes } = fitTable(rows, TASK_COLUMNS, opts);
  lines.push(text.trimEnd(), ...notes);

  const k = s.skipped;
  lines.push(
    `by role: ${s.llmRole} ${int(s.examples.total)} examples, ${int(s.tokens.total)} tokens (of ${int(s.candidates)} calls considered)`,
    `longest example ${int(s.tokens.longest)} tokens (o200k_base)` +
      (s.examples.total > 0 && s.maxTokens === null
        ? ": set the trainer's max length above it, or --max-tokens"
        : ''),
    `left out: ${int(k.failedRollout)} failed rollouts, ${int(k.errored)} errored, ${int(k.malformed)} malformed, ` +
      `${int(k.failedEvent)} failed compressions, ${int(k.overLength)} over --max-tokens, ${int(k.duplicate)} duplicates`,
    `truncated: ${int(s.truncated)} · secrets scrubbed: ${int(s.scrubbed)}`,
    `sources: split ${counts(s.sources.splits)} · guidelines ${counts(s.sources.guidelines)}`,
    `wrote ${[s.files.train, s.files.val, ...s.files.sidecars, s.files.meta].filter(Boolean).join(', ')}`,
  );
  if (s.examples.total === 0) {
    lines.push(
      c.yellow(
        'no examples were written: see "left out" above (--include-failed keeps failed rollouts)',
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A lint report as text: one line per problem, then a verdict. */
export function renderLintReport(
  r: LintReport,
  opts: { color?: boolean; limit?: number } = {},
): string {
  const c = opts.color ? pc : pc.createColors(false);
  const limit = opts.limit ?? 100;
  const out = r.problems
    .slice(0, limit)
    .map((p) => `${r.file}:${p.line}: ${c.red(p.rule)} ${p.message}`);
  if (r.problems.length > limit)
    out.push(`… and ${r.problems.length - limit} more (use --json for all)`);
  const lines = new Set(r.problems.map((p) => p.line)).size;
  out.push(
    r.problems.length === 0
      ? c.green(`${r.file}: ${r.lines} examples, valid ${r.format}`)
      : c.red(
          `${r.file}: ${r.problems.length} problems on ${lines} of ${r.lines} lines (${r.format})`,
        ),
  );
  return `${out.join('\n')}\n`;
}

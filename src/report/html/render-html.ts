import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReportData } from './report-data.js';
import { modelLabel, PEAK_NOTE } from '../table.js';
import {
  CONDITION_METRIC_DEFINITIONS as DEF,
  ROLE_COST_DEFINITIONS as COST_DEF,
  ROLLOUT_METRIC_DEFINITIONS as ROLLOUT_DEF,
} from '../../metrics/index.js';
import { pageDefinitions } from './page-definitions.js';

// The page's own script and styles ship as files in src/report/html/assets (see package.json
// "files"); from both src/report/html and dist/report/html this is ../../../src/report/html/assets.
const ASSETS = fileURLToPath(new URL('../../../src/report/html/assets/', import.meta.url));

/**
 * The charting libraries, inlined so the page opens offline: d3 (which Plot needs) and
 * Observable Plot, both as their minified UMD builds. Their package exports hide `dist/`, so
 * the files are found next to each package's main entry.
 */
function libraries(): { name: string; code: string }[] {
  const require = createRequire(import.meta.url);
  const d3 = join(dirname(require.resolve('d3')), 'd3.min.js');
  const plot = join(
    dirname(require.resolve('@observablehq/plot')),
    '..',
    'dist',
    'plot.umd.min.js',
  );
  return [
    { name: 'd3', code: readFileSync(d3, 'utf8') },
    { name: '@observablehq/plot', code: readFileSync(plot, 'utf8') },
  ];
}

/** Text safe inside a <script> element: nothing in it can close the element or open a comment. */
export function scriptSafe(code: string, name: string): string {
  if (/<\/script|<!--/i.test(code)) {
    throw new Error(`${name} contains "</script" or "<!--" and cannot be inlined`);
  }
  return code;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON inside <script type="application/json">: `<` escaped so no tag can end the element. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The data the page draws from at once; the trajectories travel apart, decoded when one is opened. */
function pageData({ trajectories: _, ...data }: ReportData) {
  // The page's column headers carry these texts (report-page.js `metricAttrs`), as the CLI's
  // footnotes do: one definition a metric, from where it is computed.
  const definitions = { condition: DEF, rollout: ROLLOUT_DEF, roleCost: COST_DEF };
  return { ...data, definitions };
}

/** The verdict lines as the terminal printed them (report/stored-verdicts.ts), one per split. */
function verdictsHtml(verdicts: ReportData['verdicts']): string {
  const lines = verdicts.map(
    (v) =>
      `<p class="verdict" data-split="${escapeHtml(v.split)}">verdict ${escapeHtml(v.line)}</p>`,
  );
  return `<div id="verdicts">${lines.join('')}</div>`;
}

/** Rollouts named in a failures row; the rest are counted (`acon rollout show` lists them all). */
const FAILED_ROLLOUTS_SHOWN = 10;

/** Where a condition's failures happened: its rollouts' tasks and id prefixes, then a count. */
function failedRolloutsHtml(rollouts: ReportData['failures'][number]['rollouts']): string {
  const items = rollouts.slice(0, FAILED_ROLLOUTS_SHOWN).map((r) => {
    const what = [
      r.failedCompressions > 0 ? `${r.failedCompressions} failed` : '',
      r.contextFallback ? 'ctx limit' : '',
    ]
      .filter((w) => w !== '')
      .join(', ');
    return `<li data-rollout="${escapeHtml(r.id)}">${escapeHtml(r.taskId)} <code>${escapeHtml(r.id.slice(0, 8))}</code> (${what})</li>`;
  });
  const more = rollouts.length - FAILED_ROLLOUTS_SHOWN;
  if (more > 0) items.push(`<li>… and ${more} more rollouts</li>`);
  return `<ul class="where">${items.join('')}</ul>`;
}

/**
 * Failed compressions (with each reason's count), context-limit fallbacks and the rollouts they
 * happened in, for every condition that had any; no section when nothing failed (issue #54).
 * Written into the page, not drawn by its script: a failure must be readable even where the
 * script does not run.
 */
function failuresHtml(failures: ReportData['failures']): string {
  if (failures.length === 0) return '';
  const rows = failures.map((f) => {
    const reasons = f.reasons.map((r) => `<li>${r.count} × ${escapeHtml(r.reason)}</li>`).join('');
    const cells = [
      escapeHtml(f.split),
      escapeHtml(f.name),
      f.failedCompressions > 0 ? `${f.failedCompressions}/${f.compressionEvents}` : '',
      reasons === '' ? '' : `<ul class="reasons">${reasons}</ul>`,
      f.contextFallbacks > 0 ? `${f.contextFallbacks}/${f.tasks}` : '',
      failedRolloutsHtml(f.rollouts),
    ];
    const data = `data-split="${escapeHtml(f.split)}" data-condition="${escapeHtml(f.condition)}"`;
    return `<tr ${data}>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
  });
  const head = ['split', 'name', 'comp fail', 'why the compressor failed', 'ctx limit', 'where'];
  return `<section id="failures">
<h2>Failures</h2>
<p class="note">comp fail: ${escapeHtml(DEF.failedCompressions)}. ctx limit: ${escapeHtml(DEF.contextFallbacks)}. where: the rollouts they happened in (open one with <code>acon rollout show ID</code>).</p>
<table class="failures"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>
</section>`;
}

/** The metrics of the page, each with the definition the CLI's footnote prints. */
function definitionsHtml(simulated: boolean): string {
  const items = pageDefinitions(simulated).map(
    (d) => `<dt>${escapeHtml(d.label)}</dt><dd>${escapeHtml(d.text)}</dd>`,
  );
  return `<dl id="definitions" class="definitions">${items.join('')}</dl>`;
}

/** The note under the viewer when some trajectories were left out of the file. */
function omittedHtml(omitted: number): string {
  return omitted > 0
    ? `<p class="note">${omitted} trajectories are not embedded (to keep the file small); open them with <code>acon rollout show ID</code>.</p>`
    : '';
}

/** One self-contained HTML page: styles, libraries, data and the page script are all inline. */
export function renderReportHtml(data: ReportData): string {
  const r = data.run;
  const models = Object.entries(r.models)
    .map(([role, m]) => `${role} <code>${escapeHtml(modelLabel(m))}</code>`)
    .join(' · ');
  const css = readFileSync(join(ASSETS, 'report.css'), 'utf8');
  const page = readFileSync(join(ASSETS, 'report-page.js'), 'utf8');
  const libs = libraries()
    .map((l) => `<script data-lib="${l.name}">${scriptSafe(l.code, l.name)}</script>`)
    .join('\n');
  const simulated = r.simulated
    ? `<div class="simulated" id="simulated">SIMULATED — produced by the offline sim provider, not a real model. Use --provider openai for real results.</div>`
    : '';
  const verdicts = verdictsHtml(data.verdicts);
  const omitted = omittedHtml(data.omittedTrajectories);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>acon report — ${escapeHtml(r.id)}${r.simulated ? ' (SIMULATED)' : ''}</title>
<style>${css}</style>
</head>
<body>
<header>
<h1>acon report — run <code id="run-id">${escapeHtml(r.id)}</code></h1>
${simulated}
<p class="meta">provider <code>${escapeHtml(r.provider)}</code> · ${models}</p>
<p class="meta">${escapeHtml(r.kind)} on ${escapeHtml(r.bench)} · status ${escapeHtml(r.status)} · created ${escapeHtml(r.createdAt)} · report generated ${escapeHtml(data.generatedAt)}</p>
<p class="meta">command <code>${escapeHtml(r.command)}</code></p>
</header>
<section id="pareto">
<h2>Accuracy vs peak tokens</h2>
${verdicts}
<p class="note">One point per condition (or guideline version) and split; bars are 95% bootstrap intervals of the accuracy. ${escapeHtml(PEAK_NOTE)}. Up and to the left is better.</p>
<figure class="plot" data-plot="pareto"></figure>
<div id="conditions-table"></div>
<h3>Definitions</h3>
${definitionsHtml(r.simulated)}
</section>
${failuresHtml(data.failures)}
<section id="winloss">
<h2>Per-task wins and losses against raw</h2>
<p class="note">win: the condition succeeded where raw (no compression) failed; loss: the reverse.</p>
<figure class="plot" data-plot="winloss"></figure>
</section>
<section id="distributions">
<h2>Distributions</h2>
<figure class="plot" data-plot="peaks"></figure>
<figure class="plot" data-plot="steps"></figure>
</section>
<section id="cost">
<h2>Cost by role</h2>
<p class="note">Tokens of every LLM call of the run, by role; the table gives the cost in USD (cache hits and simulated calls cost nothing).</p>
<figure class="plot" data-plot="cost"></figure>
<div id="cost-table"></div>
</section>
<section id="lineage">
<h2>Guideline lineage</h2>
<p class="note">Each version hangs under its parent; green accepted, red rejected. The diffs are against the parent.</p>
<figure class="plot" data-plot="lineage"></figure>
</section>
<section id="trajectories">
<h2>Trajectories</h2>
<p class="note">Click a rollout to read it step by step: the action, the observation, and each compression with its input and output side by side.</p>
${omitted}
<div class="controls"><input id="rollout-filter" placeholder="filter by condition, task or id"> <label><input type="checkbox" id="rollout-failed"> failed only</label></div>
<div id="rollout-list" class="scroll"></div>
<div id="viewer"></div>
</section>
<script type="application/json" id="acon-data">${embedJson(pageData(data))}</script>
<script type="text/plain" id="acon-trajectories" data-encoding="gzip+base64">${data.trajectories}</script>
${libs}
<script>${scriptSafe(page, 'report-page.js')}</script>
</body>
</html>
`;
}

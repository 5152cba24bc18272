import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONDITION_METRIC_DEFINITIONS,
  REPLAY_METRIC_DEFINITIONS,
  ROLLOUT_METRIC_DEFINITIONS,
} from '../../src/metrics/index.js';
import { conditionColumns } from '../../src/report/index.js';
import * as measured from './measured-tables.js';
import * as simSeeds from './sim-seeds-tables.js';
import { REPO } from './repo.js';

/**
 * The docs' tables that quote what acon prints or defines, each between
 * `<!-- generated: NAME -->` and `<!-- end -->` in its page (issue #58). `npm run docs:tables`
 * rewrites them (scripts/docs-tables.ts); test/docs-tables.test.ts fails when a page drifts
 * from what the code prints. The metric tables are rendered from the code; the
 * tables of compare and optimize figures, which take minutes of CPU each, from the records in
 * docs/measured/ (scripts/docs/measured-tables.ts; `npm run docs:tables -- --measure NAME|all`
 * measures them again), and the sim-seeds tables from the sets in docs/measured/sim-seeds/
 * (scripts/docs/sim-seeds-tables.ts; docs/development.md says how to measure them again).
 */

export { REPO };

export type DocTable = { name: string; page: string; render: () => string; inline?: boolean };

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** Column labels of the terminal tables, by metric field. */
function labels(): Map<string, string> {
  return new Map(conditionColumns().map((c) => [c.key, c.label]));
}

function metricTable(): string {
  const label = labels();
  const rows = Object.entries(CONDITION_METRIC_DEFINITIONS).map(
    ([key, text]) => `| \`${label.get(key) ?? key}\` | \`${key}\` | ${cell(text)} |`,
  );
  const rollout = Object.entries(ROLLOUT_METRIC_DEFINITIONS).map(
    ([key, text]) => `| \`${key}\` (a rollout) | \`${key}\` | ${cell(text)} |`,
  );
  return ['| label | field | definition |', '| --- | --- | --- |', ...rows, ...rollout].join('\n');
}

function replayTable(): string {
  return [
    '| field | definition |',
    '| --- | --- |',
    ...Object.entries(REPLAY_METRIC_DEFINITIONS).map(
      ([key, text]) => `| \`${key}\` | ${cell(text)} |`,
    ),
  ].join('\n');
}

export const DOC_TABLES: DocTable[] = [
  { name: 'metric-definitions', page: 'docs/method.md', render: metricTable },
  { name: 'replay-metric-definitions', page: 'docs/traces.md', render: replayTable },
  { name: 'readme-cost', page: 'README.md', render: measured.readmeCost, inline: true },
  { name: 'readme-compare', page: 'README.md', render: measured.readmeCompare },
  { name: 'readme-optimize', page: 'README.md', render: measured.readmeOptimize },
  { name: 'results-verdict', page: 'docs/results.md', render: measured.resultsVerdict },
  {
    name: 'results-report-size',
    page: 'docs/results.md',
    render: measured.resultsReportSize,
    inline: true,
  },
  {
    name: 'results-compare-one-task',
    page: 'docs/results.md',
    render: measured.resultsCompareOneTask,
  },
  { name: 'mcp-compare', page: 'docs/benchmarks.md', render: measured.mcpCompare },
  { name: 'sim-compare', page: 'docs/sim.md', render: measured.simCompare },
  { name: 'sim-seeds-bands', page: 'docs/sim.md', render: simSeeds.simSeedsBands },
  { name: 'sim-seeds-ut', page: 'docs/sim.md', render: simSeeds.simSeedsUtRecovery },
  { name: 'readme-sim-seeds', page: 'README.md', render: simSeeds.readmeSimSeeds, inline: true },
];

/**
 * `<!-- generated: NAME -->` then the block, then `<!-- end -->`: on lines of their own around a
 * table, or inside a paragraph around a sentence (`inline`).
 */
const MARKED = /<!-- generated: ([\w-]+) -->(\n?)([\s\S]*?)<!-- end -->/g;

/** NAME → the text between its markers, for one page. */
export function markedBlocks(markdown: string): Map<string, string> {
  return new Map([...markdown.matchAll(MARKED)].map((m) => [m[1]!, m[3]!]));
}

/** The page with each of its generated blocks rewritten from `tables`. */
export function rewrite(markdown: string, tables: DocTable[]): string {
  return markdown.replace(MARKED, (whole, name: string) => {
    const table = tables.find((t) => t.name === name);
    if (!table) return whole;
    return table.inline
      ? `<!-- generated: ${name} -->${table.render()}<!-- end -->`
      : `<!-- generated: ${name} -->\n${table.render()}\n<!-- end -->`;
  });
}

export const readPage = (page: string) => readFileSync(join(REPO, page), 'utf8');

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONDITION_METRIC_DEFINITIONS,
  REPLAY_METRIC_DEFINITIONS,
  ROLLOUT_METRIC_DEFINITIONS,
} from '../../src/metrics/index.js';
import { conditionColumns } from '../../src/report/index.js';
import { REPO } from './repo.js';

/**
 * The docs' tables that quote what acon prints or defines, each between
 * `<!-- generated: NAME -->` and `<!-- end -->` in its page (issue #58). `npm run docs:tables`
 * rewrites them (scripts/docs-tables.ts); test/docs-tables.test.ts fails when a page drifts
 * from what the code prints. Only tables whose source is cheap are here so far: the tables of
 * optimize and compare figures (README, docs/sim.md, docs/benchmarks.md) take minutes of CPU
 * each and are not generated yet.
 */

export { REPO };

export type DocTable = { name: string; page: string; render: () => string };

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
];

const MARKED = /<!-- generated: ([\w-]+) -->\n([\s\S]*?)<!-- end -->/g;

/** NAME → the text between its markers, for one page. */
export function markedBlocks(markdown: string): Map<string, string> {
  return new Map([...markdown.matchAll(MARKED)].map((m) => [m[1]!, m[2]!]));
}

/** The page with each of its generated blocks rewritten from `tables`. */
export function rewrite(markdown: string, tables: DocTable[]): string {
  return markdown.replace(MARKED, (whole, name: string) => {
    const table = tables.find((t) => t.name === name);
    return table ? `<!-- generated: ${name} -->\n${table.render()}\n<!-- end -->` : whole;
  });
}

export const readPage = (page: string) => readFileSync(join(REPO, page), 'utf8');

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CONDITION_METRIC_DEFINITIONS,
  REPLAY_METRIC_DEFINITIONS,
  ROLE_COST_DEFINITIONS,
  ROLLOUT_METRIC_DEFINITIONS,
  RUN_DIFF_DEFINITIONS,
} from '../src/metrics/index.js';
import { conditionColumns, conditionTable } from '../src/report/table.js';
import { pageDefinitions } from '../src/report/html/page-definitions.js';
import { renderReportHtml } from '../src/report/html/render-html.js';
import { packForPage } from '../src/report/html/pack.js';
import type { ReportData } from '../src/report/html/report-data.js';
import type { ConditionMetrics, Provenance } from '../src/domain/index.js';
import { REPO } from './helpers/doc-commands.js';

/**
 * Issue #58: every metric the terminal or the HTML report shows has one definition text, kept in
 * src/metrics/definitions.ts, and both print that text.
 */

const ALL = [
  ...Object.values(CONDITION_METRIC_DEFINITIONS),
  ...Object.values(ROLLOUT_METRIC_DEFINITIONS),
  ...Object.values(REPLAY_METRIC_DEFINITIONS),
  ...Object.values(ROLE_COST_DEFINITIONS),
  ...Object.values(RUN_DIFF_DEFINITIONS),
];

/** A row where every column has something to show (failures, QA scores and SGC included). */
const ROW: ConditionMetrics = {
  condition: 'acon[obs-0001,hist-0001]',
  tasks: 4,
  accuracy: 0.75,
  accuracyCi: [0.25, 1],
  meanPeakTokens: 4000,
  medianPeakTokens: 3900,
  meanPeakPromptTokens: 5000,
  peakReductionVsRaw: 0.5,
  meanSteps: 12,
  stepsVsRaw: 1.1,
  costPerTask: 0.01,
  fullCostPerTask: 0.02,
  meanTotalTokens: 50_000,
  meanDependency: 3e6,
  compressorCostShare: 0.2,
  eventsPerTask: 3,
  compressionEvents: 12,
  failedCompressions: 1,
  contextFallbacks: 1,
  exactMatch: 0.5,
  f1: 0.6,
  sgc: 0.5,
  pareto: true,
};

const PROVENANCE: Provenance = {
  runId: 'run-defs',
  bench: 'apptown',
  split: 'dev',
  provider: 'sim',
  models: { agent: 'sim/gpt-4.1', obs_compressor: 'sim/gpt-4.1' },
  simulated: true,
};

async function report(simulated: boolean): Promise<ReportData> {
  const { condition: _, ...metrics } = ROW;
  return {
    run: {
      id: 'run-defs',
      kind: 'compare',
      command: 'acon compare',
      bench: 'apptown',
      provider: simulated ? 'sim' : 'openai',
      models: { agent: 'sim/gpt-4.1' },
      simulated,
      status: 'finished',
      createdAt: '2026-12-03T00:00:00Z',
      finishedAt: null,
    },
    generatedAt: '2026-12-03T00:00:00Z',
    conditions: [{ ...metrics, condition: 'raw', split: 'dev', name: 'raw', pareto: true }],
    verdicts: [],
    rollouts: [],
    costByRole: [],
    lineage: [],
    trajectoryIds: [],
    trajectories: await packForPage({ lines: [], value: {} }),
    failures: [],
    omittedTrajectories: 0,
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Source files of src/ other than tests, relative to the repository. */
function sources(dir = join(REPO, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|js)$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [path] : [];
  });
}

describe('metric definitions', () => {
  it('are one text a metric: no two metrics share a text', () => {
    expect(new Set(ALL).size).toBe(ALL.length);
  });

  it('are written only in src/metrics/definitions.ts (a copy elsewhere would drift)', () => {
    // Short texts ("tasks", "median peak") are words any file may hold; the long ones are not.
    const long = ALL.filter((t) => t.length >= 25);
    const copies = sources()
      .filter((f) => !f.endsWith(join('src', 'metrics', 'definitions.ts')))
      .flatMap((f) => {
        const text = readFileSync(f, 'utf8');
        return long.filter((t) => text.includes(t)).map((t) => `${relative(REPO, f)}: ${t}`);
      });
    expect(copies).toEqual([]);
  });

  it('give each metric column of the terminal tables the definition of its field', () => {
    const defs: Record<string, string> = CONDITION_METRIC_DEFINITIONS;
    const undefinedColumns = conditionColumns<ConditionMetrics>()
      .filter((c) => c.key !== 'condition' && c.key !== 'meanPeakTokens')
      .filter((c) => c.note === undefined || !c.note.startsWith(defs[c.key] ?? '\u0000'))
      .map((c) => c.key);
    expect(undefinedColumns).toEqual([]);
  });

  it('are printed word for word by the CLI footnote and by the HTML report', async () => {
    // Wide: no footnote is wrapped, so each definition is one substring of the output.
    const cli = conditionTable([ROW], PROVENANCE, { wide: true });
    for (const simulated of [true, false]) {
      const html = renderReportHtml(await report(simulated));
      const shown = pageDefinitions(simulated);
      expect(shown.length).toBeGreaterThan(0);
      for (const { label, text } of shown) {
        expect(html, `the report defines ${label}`).toContain(escapeHtml(text));
        // The rollout-level ones are the footnote of `acon runs show` (run-show.test.ts).
        if (!Object.values(ROLLOUT_METRIC_DEFINITIONS).includes(text as never)) {
          expect(cli, `the CLI defines ${label}`).toContain(text);
        }
      }
    }
    // The peak the terminal and the page define is the one that leaves the system prompt out.
    expect(cli).toContain(`peak = ${CONDITION_METRIC_DEFINITIONS.meanPeakTokens}`);
    expect(renderReportHtml(await report(true))).not.toMatch(/peak[^.<]*includes the system/);
  });
});

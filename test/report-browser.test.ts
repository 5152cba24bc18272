import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, isCi } from './helpers/chromium.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { copyOfSharedOptimize } from './helpers/shared-optimize.js';
import { renderReportHtml } from '../src/report/html/render-html.js';
import { packForPage } from '../src/report/html/pack.js';
import type { ReportData } from '../src/report/html/report-data.js';
import {
  CONDITION_METRIC_DEFINITIONS,
  ROLE_COST_DEFINITIONS,
  ROLLOUT_METRIC_DEFINITIONS,
} from '../src/metrics/index.js';

/** Column headers of the page's tables that name no metric (what a row is, not a number). */
const NOT_METRICS = new Set([
  ...['split', 'name', 'condition', 'version', 'parent', 'phase', 'status', 'why'],
  ...['rollout', 'task', 'ok', 'failure reason', 'role'],
]);

/**
 * Every metric column of the page's condition, lineage, rollout and cost tables, with the definition
 * its header carries (issue #58: the page and the CLI define a metric with one text, from
 * src/metrics/definitions.ts). Returns the headers that carry none or a text of their own.
 */
async function undefinedMetricColumns(page: Page): Promise<string[]> {
  const texts = new Set<string>([
    ...Object.values(CONDITION_METRIC_DEFINITIONS),
    ...Object.values(ROLLOUT_METRIC_DEFINITIONS),
    ...Object.values(ROLE_COST_DEFINITIONS),
    `${CONDITION_METRIC_DEFINITIONS.accuracy}, ${CONDITION_METRIC_DEFINITIONS.accuracyCi}`,
  ]);
  const headers = await page.$$eval(
    '#conditions-table th, #lineage-list th, #rollout-list th, #cost-table th',
    (n) => n.map((h) => ({ label: h.textContent ?? '', title: h.getAttribute('title') })),
  );
  expect(headers.length).toBeGreaterThan(0);
  return headers
    .filter((h) => !NOT_METRICS.has(h.label))
    .filter((h) => h.title === null || !texts.has(h.title))
    .map((h) => `${h.label}: ${h.title ?? 'no definition'}`);
}

/**
 * A report of an optimize-sized run, made by hand: 40 candidate guidelines beside raw in each of
 * two splits, as the README optimize's dev split holds (issue #58: its labels overlapped).
 */
async function crowdedReport(): Promise<ReportData> {
  const splits = ['dev', 'test'];
  const labels = [
    'raw',
    ...Array.from(
      { length: 40 },
      (_, i) => `acon[obs-${String(i + 1).padStart(4, '0')},hist-0000]`,
    ),
  ];
  const conditions = splits.flatMap((split) =>
    labels.map((condition, i) => ({
      condition,
      split,
      name: i === 1 ? `UTCO both ${condition}` : condition,
      tasks: 8,
      accuracy: 0.5 + (i % 5) / 10,
      accuracyCi: [0.3, 0.9] as [number, number],
      meanPeakTokens: 4000 + 97 * i,
      medianPeakTokens: 4000,
      meanPeakPromptTokens: null,
      peakReductionVsRaw: null,
      meanSteps: 10,
      stepsVsRaw: null,
      costPerTask: 0,
      fullCostPerTask: null,
      meanTotalTokens: 0,
      meanDependency: null,
      compressorCostShare: 0,
      eventsPerTask: 0,
      compressionEvents: 0,
      failedCompressions: 0,
      contextFallbacks: 0,
      exactMatch: null,
      f1: null,
      pareto: i < 3,
    })),
  );
  const rollouts = splits.flatMap((split) =>
    labels.flatMap((condition, i) =>
      Array.from({ length: 8 }, (_, t) => ({
        id: `${split}-${i}-${t}`,
        condition,
        taskId: `task-${t}`,
        split,
        success: (i + t) % 3 !== 0,
        score: 1,
        status: 'completed',
        steps: 10,
        peakInputTokens: 4000,
        costUsd: 0,
        fullCostUsd: null,
        compressionEvents: 0,
        reason: null,
      })),
    ),
  );
  return {
    run: {
      id: 'run-crowded',
      kind: 'optimize',
      command: 'acon optimize',
      bench: 'apptown',
      provider: 'sim',
      models: { agent: 'sim/gpt-4.1' },
      simulated: true,
      status: 'finished',
      createdAt: '2026-12-02T00:00:00Z',
      finishedAt: null,
    },
    generatedAt: '2026-12-02T00:00:00Z',
    conditions,
    verdicts: [{ split: 'test', line: 'test: Pareto: raw' }],
    rollouts,
    costByRole: [],
    lineage: [],
    trajectoryIds: [],
    trajectories: await packForPage({ lines: [], value: {} }),
    failures: [
      {
        split: 'test',
        condition: labels[1]!,
        name: `UTCO both ${labels[1]!}`,
        failedCompressions: 12,
        compressionEvents: 40,
        reasons: [
          { reason: 'the answer was cut off at the token limit (finish_reason: length)', count: 8 },
          {
            reason:
              "the answer was stopped by the provider's content filter (finish_reason: content_filter)",
            count: 4,
          },
        ],
        contextFallbacks: 0,
        tasks: 8,
        rollouts: Array.from({ length: 12 }, (_, t) => ({
          id: `test-1-${t}`,
          taskId: `task-${t}`,
          failedCompressions: 1,
          contextFallback: false,
        })),
      },
    ],
    omittedTrajectories: 0,
  };
}

/** Screenshots land here (git-ignored) so a failing CI run can be looked at. */
const ARTEFACTS = resolve(import.meta.dirname, 'artifacts');

const executable = findChromium();
if (!executable && isCi()) {
  throw new Error(
    "CI is set but no Chromium was found: install Debian's `chromium` (.ci/run does) or set CHROMIUM_PATH",
  );
}
if (!executable) {
  process.stderr.write(
    'report-browser.test.ts: SKIPPED — no chromium found (apt-get install chromium, or set CHROMIUM_PATH); under CI=true this test fails instead\n',
  );
}

/** The marks each plot must have drawn (Plot labels each mark's group with its name). */
const EXPECTED_MARKS: Record<string, string> = {
  pareto: 'dot',
  winloss: 'cell',
  peaks: 'bar',
  steps: 'bar',
  cost: 'bar',
};

/** Pairs of text labels whose boxes intersect, per drawn plot (issue #24: labels never overlap). */
async function overlappingLabels(page: Page, plot: string): Promise<string[]> {
  return page.$$eval(`[data-plot="${plot}"] svg`, (svgs) =>
    svgs.flatMap((svg) => {
      // A label's own text: its text nodes and tspans, not the tooltip <title> inside it.
      const own = (t: {
        childNodes: ArrayLike<{ nodeType: number; nodeName: string; textContent: string | null }>;
      }) =>
        Array.from(t.childNodes)
          .filter((n) => n.nodeType === 3 || n.nodeName === 'tspan')
          .map((n) => n.textContent ?? '')
          .join('')
          .trim();
      const boxes = [...svg.querySelectorAll('text')]
        .filter((t) => own(t) !== '')
        .map((t) => ({ text: own(t), r: t.getBoundingClientRect() }));
      const out: string[] = [];
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i]!.r;
          const b = boxes[j]!.r;
          if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
            out.push(`${boxes[i]!.text} × ${boxes[j]!.text}`);
          }
        }
      }
      return out;
    }),
  );
}

describe.skipIf(!executable)('acon report in headless Chromium', () => {
  let browser: Browser;
  let file: string;
  let runId: string;
  let compareStdout: string;

  beforeAll(async () => {
    const cwd = tempDir();
    const cmp = await runAcon(
      [
        'compare',
        '--bench',
        'apptown',
        '--split',
        'dev',
        '--strategies',
        'raw,masking,naive',
        '--max-tasks',
        '10',
      ],
      { cwd },
    );
    expect(cmp.code, cmp.stderr).toBe(0);
    runId = /as run (\S+)/.exec(cmp.stdout)![1]!;
    compareStdout = cmp.stdout;
    file = join(cwd, 'report.html');
    const rep = await runAcon(['report', runId, '--html', file], { cwd });
    expect(rep.code, rep.stderr).toBe(0);
    expect(rep.stderr).toBe('');
    browser = await chromium.launch({
      executablePath: executable!,
      args: ['--no-sandbox', '--disable-gpu'],
    });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('draws every plot, opens a rollout in the viewer and loads nothing from outside the file', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    const url = pathToFileURL(file).href;
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });

    expect(await page.textContent('#run-id')).toBe(runId);
    expect(await page.textContent('#simulated')).toContain('SIMULATED');
    for (const [plot, mark] of Object.entries(EXPECTED_MARKS)) {
      const drawn = await page.$$eval(
        `[data-plot="${plot}"] svg g[aria-label="${mark}"] > *`,
        (nodes) => nodes.length,
      );
      expect(drawn, `${plot} drew no ${mark} marks`).toBeGreaterThan(0);
    }

    for (const plot of ['pareto', ...Object.keys(EXPECTED_MARKS)]) {
      expect(await overlappingLabels(page, plot), `${plot} labels overlap`).toEqual([]);
    }
    // The Pareto frontier is drawn in every split, and the table marks its conditions.
    const splits = await page.$$eval('[data-plot="pareto"] svg', (n) => n.length);
    expect(
      await page.$$eval('[data-plot="pareto"] svg g[aria-label="line"] path', (n) => n.length),
    ).toBe(splits);
    expect(await page.textContent('#conditions-table')).toContain('★');
    expect(await undefinedMetricColumns(page)).toEqual([]);
    // The verdict the terminal printed, word for word, and the terminal's peak definition.
    const cliVerdict = /^verdict .+$/m.exec(compareStdout)![0];
    expect(await page.$$eval('#verdicts .verdict', (n) => n.map((v) => v.textContent))).toEqual([
      cliVerdict,
    ]);
    expect(await page.textContent('#pareto .note')).toContain(
      'peak = mean largest agent context of a rollout in tokens, system prompt and tools excluded',
    );
    // Under sim the cost column is the full cost, and says so.
    expect(await page.textContent('#conditions-table')).toContain('full $/task');
    expect(await page.textContent('#conditions-table')).toMatch(
      /SIMULATED: simulated calls are billed \$0/,
    );

    mkdirSync(ARTEFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTEFACTS, 'report.png'), fullPage: true });

    await page.click('#rollout-failed');
    const first = page.locator('#rollout-list tbody tr').first();
    const id = await first.getAttribute('data-id');
    await first.click();
    await page.waitForSelector('#viewer .step');
    expect(await page.locator('#viewer .step').count()).toBeGreaterThan(0);
    expect(await page.textContent('#viewer')).toContain(id!);
    expect(await page.textContent('#viewer')).toContain('failure reason');
    // Long failure reasons wrap inside the list instead of running off the page.
    const overflow = await page.$eval('#rollout-list', (n) => n.scrollWidth - n.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);

    await page.locator('#trajectories').screenshot({ path: join(ARTEFACTS, 'report-viewer.png') });

    expect(errors).toEqual([]);
    expect(requests.filter((u) => u !== url)).toEqual([]);
    await page.close();
  });

  it('draws the guideline lineage of an optimize run as a tree, with diffs', async () => {
    // A copy of the folder of a fresh `acon optimize --bench apptown` over the short tasks, run
    // once for the test run (test/helpers/shared-optimize.ts; test/cli-e2e.test.ts checks it).
    const { cwd, result: opt } = await copyOfSharedOptimize();
    expect(opt.code, opt.stderr).toBe(0);
    const optRun = /as run (\S+)/.exec(opt.stdout)![1]!;
    const optFile = join(cwd, 'optimize.html');
    const rep = await runAcon(['report', optRun, '--html', optFile], { cwd });
    expect(rep.code, rep.stderr).toBe(0);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(optFile).href);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    for (const mark of ['link', 'dot']) {
      const drawn = await page.$$eval(
        `[data-plot="lineage"] svg g[aria-label="${mark}"] > *`,
        (nodes) => nodes.length,
      );
      expect(drawn, `lineage drew no ${mark} marks`).toBeGreaterThan(0);
    }
    expect(await page.locator('#lineage details').count()).toBeGreaterThan(0);
    expect(await page.textContent('#lineage')).toMatch(/obs-0001/);
    // Every version of the run is a node of the tree, none cut off, no labels on top of each other.
    const treeLabels = await page.$$eval('[data-plot="lineage"] svg text', (n) =>
      n.map((t) =>
        Array.from(
          (
            t as {
              childNodes: ArrayLike<{
                nodeType: number;
                nodeName: string;
                textContent: string | null;
              }>;
            }
          ).childNodes,
        )
          .filter((c) => c.nodeType === 3 || c.nodeName === 'tspan')
          .map((c) => c.textContent ?? '')
          .join('')
          .trim(),
      ),
    );
    const versions = await page.$$eval('#lineage-list tbody tr td:first-child', (n) =>
      n.map((t) => t.textContent ?? ''),
    );
    expect(versions.length).toBeGreaterThan(2);
    for (const v of versions) expect(treeLabels).toContain(v);
    const svgBox = await page.$eval(
      '[data-plot="lineage"] svg',
      (n) => n.getBoundingClientRect().toJSON() as { top: number; bottom: number },
    );
    const textBoxes = await page.$$eval('[data-plot="lineage"] svg text', (n) =>
      n.map((t) => t.getBoundingClientRect().toJSON() as { top: number; bottom: number }),
    );
    for (const b of textBoxes) {
      expect(b.top).toBeGreaterThanOrEqual(svgBox.top);
      expect(b.bottom).toBeLessThanOrEqual(svgBox.bottom);
    }
    expect(await overlappingLabels(page, 'lineage')).toEqual([]);
    expect(await overlappingLabels(page, 'pareto')).toEqual([]);
    // Rows are named as the terminal names them (v0/UT/UTCO), and the verdicts are its lines.
    const cliVerdicts = opt.stdout.match(/^verdict .+$/gm) ?? [];
    expect(cliVerdicts.length).toBeGreaterThan(0);
    const pageVerdicts = await page.$$eval('#verdicts .verdict', (n) =>
      n.map((v) => v.textContent ?? ''),
    );
    // The terminal wraps a long verdict; compare the words.
    const words = (t: string) => t.split(/\s+/).join(' ');
    // One line per split of the final tables; the pair check's `verdict pair:` judges no split.
    expect(pageVerdicts.map(words)).toEqual(
      (opt.stdout.match(/^verdict [\s\S]*?(?=\nverdict |\n[A-Za-z=]+[ :=])/gm) ?? [])
        .filter((v) => !v.startsWith('verdict pair:'))
        .map(words),
    );
    const plotLabels = await page.$$eval(
      '[data-plot="pareto"] svg g[aria-label="labels"] text',
      (n) => n.map((t) => t.textContent ?? ''),
    );
    expect(plotLabels.some((l) => /^(v0|UT|UTCO)\b/.test(l))).toBe(true);
    expect(plotLabels.some((l) => l.startsWith('acon['))).toBe(false);
    expect(await page.textContent('#conditions-table')).toMatch(/UTCO/);
    expect(await page.$$eval('#lineage-list th', (n) => n.length)).toBeGreaterThan(0);
    expect(await undefinedMetricColumns(page)).toEqual([]);
    mkdirSync(ARTEFACTS, { recursive: true });
    await page.locator('#lineage').screenshot({ path: join(ARTEFACTS, 'report-lineage.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);

  it('labels a crowded run without two labels on top of each other, by the terminal names', async () => {
    const crowded = join(tempDir('acon-report-crowded-'), 'crowded.html');
    writeFileSync(crowded, renderReportHtml(await crowdedReport()));
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(pathToFileURL(crowded).href);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    for (const plot of ['pareto', ...Object.keys(EXPECTED_MARKS)]) {
      expect(await overlappingLabels(page, plot), `${plot} labels overlap`).toEqual([]);
    }
    const ticks = await page.$$eval('[data-plot="winloss"] svg text', (n) =>
      n.map((t) => t.textContent ?? ''),
    );
    expect(ticks).toContain('UTCO both');
    expect(ticks).toContain('obs-0040 hist-0000');
    expect(await page.textContent('#verdicts')).toBe('verdict test: Pareto: raw');
    // The failures are listed on the page, script or not: count, reasons, where (issue #54).
    expect(await page.isVisible('#failures')).toBe(true);
    const failed = page.locator('#failures tbody tr');
    expect(await failed.count()).toBe(1);
    expect(await failed.locator('td').allTextContents()).toEqual([
      'test',
      'UTCO both acon[obs-0001,hist-0000]',
      '12/40',
      "8 × the answer was cut off at the token limit (finish_reason: length)4 × the answer was stopped by the provider's content filter (finish_reason: content_filter)",
      '',
      expect.stringMatching(/^task-0 test-1-0 \(1 failed\)task-1 .*… and 2 more rollouts$/),
    ]);
    expect(await failed.locator('ul.where li').count()).toBe(11);
    await page.close();
  }, 60_000);

  it('writes one file with every script inline', () => {
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script[^>]*\ssrc\s*=|<link[^>]*\shref\s*=|@import|<iframe/i);
    expect(html).toContain(runId);
  });
});

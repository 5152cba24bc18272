import { z } from 'zod';
import { readRecord, type MeasuredRecord } from './measured-record.js';

/**
 * The docs' blocks that quote a measured command (issue #58), each rendered from its record in
 * docs/measured/ (scripts/docs/measurements.ts measures them). Every block says what it was
 * measured with: the command, the commit, the date and the machine's load.
 */

/** The part of a condition row the docs quote (ConditionMetrics, plus optimize's version label). */
const RowSchema = z.object({
  condition: z.string(),
  tasks: z.number(),
  accuracy: z.number(),
  meanPeakTokens: z.number(),
  meanSteps: z.number(),
  stepsVsRaw: z.number().nullable(),
  version: z.string().optional(),
});
type Row = z.infer<typeof RowSchema>;

const CompareSchema = z.object({
  compare: z.object({
    provenance: z.object({ provider: z.string(), models: z.record(z.string(), z.string()) }),
    conditions: z.array(RowSchema),
    verdict: z.string().nullable().optional(),
  }),
});

const OptimizeSchema = z.object({
  stdout: z.string(),
  run: z.object({
    summary: z.object({
      tables: z.array(z.object({ split: z.string(), rows: z.array(RowSchema) })),
    }),
  }),
  rollouts: z.number(),
  reportBytes: z.number(),
});

const CostSchema = z.object({ stdout: z.string() });

function record(name: string): MeasuredRecord {
  const r = readRecord(name);
  if (!r)
    throw new Error(
      `docs/measured/${name}.json is missing: npm run docs:tables -- --measure ${name}`,
    );
  return r;
}

const pct = (x: number) => (100 * x).toFixed(1);
const int = (x: number) => Math.round(x).toLocaleString('en-US');
/** `4 Dec 2026`: the day a record was measured, in UTC. */
export const day = (iso: string) =>
  new Date(iso).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
const load1 = (load: string) => Number(load.split(' ')[0]);

/** The load range of one or more records, as `load average 7.1–14.2 on 2 cores`. */
function loadRange(records: MeasuredRecord[]): string {
  const loads = records.flatMap((r) => [load1(r.loadBefore), load1(r.loadAfter)]);
  const lo = Math.min(...loads).toFixed(1);
  const hi = Math.max(...loads).toFixed(1);
  return `load average ${lo === hi ? lo : `${lo}–${hi}`} on ${records[0]!.cpus} cores`;
}

/** `main `3339c6a``, with a note when what acon runs differed from that commit. */
const commitOf = (r: MeasuredRecord) => `\`${r.commit}\`${r.dirty ? ' (with local changes)' : ''}`;

/** The provenance line under a block: which records, measured how and when. */
function measuredLine(records: MeasuredRecord[]): string {
  const names = records.map((r) => r.name).join(',');
  const commits = [...new Set(records.map(commitOf))].join(', ');
  const days = [...new Set(records.map((r) => day(r.date)))].join(', ');
  return `Measured on ${commits}, ${days}, ${loadRange(records)} (\`npm run docs:tables -- --measure ${names}\`; records in \`docs/measured/\`).`;
}

function compareRows(name: string): { rows: Row[]; record: MeasuredRecord; models: string } {
  const r = record(name);
  const c = CompareSchema.parse(r.output).compare;
  const models = [...new Set(Object.values(c.provenance.models))].join(', ');
  return { rows: c.conditions, record: r, models: `provider ${c.provenance.provider}, ${models}` };
}

const find = (rows: Row[], condition: string) => {
  const row = rows.find((x) => x.condition === condition);
  if (!row) throw new Error(`no ${condition} row`);
  return row;
};

const STRATEGY_LABELS: [string, string][] = [
  ['raw', 'raw'],
  ['fifo', 'fifo'],
  ['masking', 'masking'],
  ['summary', 'summary'],
  ['naive', 'naive (v0)'],
  ['retrieval', 'retrieval'],
];

/** README: accuracy and mean peak of every baseline on the shipped and the seed-2 test split. */
export function readmeCompare(): string {
  const sets = [compareRows('compare-shipped'), compareRows('compare-seed2')];
  const lines = [
    '| `acon compare` | shipped: acc % | peak | seed 2: acc % | peak |',
    '|---|---|---|---|---|',
    ...STRATEGY_LABELS.map(
      ([condition, label]) =>
        `| ${label} | ${sets.map(({ rows }) => `${pct(find(rows, condition).accuracy)} | ${int(find(rows, condition).meanPeakTokens)}`).join(' | ')} |`,
    ),
  ];
  const tasks = find(sets[0]!.rows, 'raw').tasks;
  lines.push(
    '',
    `SIMULATED (${sets[0]!.models}; ${tasks} test tasks a set). ${measuredLine(sets.map((s) => s.record))}`,
  );
  return lines.join('\n');
}

/** docs/sim.md: accuracy / mean peak / steps against raw on three sets. */
export function simCompare(): string {
  const sets = ['compare-shipped', 'compare-seed2', 'compare-seed7'].map(compareRows);
  const cell = (row: Row) =>
    `${pct(row.accuracy)} / ${int(row.meanPeakTokens)} / ${(row.stepsVsRaw ?? 1).toFixed(2)}`;
  const lines = [
    '| strategy | shipped | seed 2 | seed 7 |',
    '|---|---|---|---|',
    ...STRATEGY_LABELS.map(
      ([condition, label]) =>
        `| ${label === 'fifo' ? 'fifo (last 5 turns)' : label} | ${sets.map(({ rows }) => cell(find(rows, condition))).join(' | ')} |`,
    ),
    '',
    `SIMULATED (${sets[0]!.models}). \`${sets[0]!.record.commands.at(-1)}\`, the seeds' tasks from \`gen-apptown-tasks.ts --seed N\`. ${measuredLine(sets.map((s) => s.record))}`,
  ];
  return lines.join('\n');
}

function optimizeOf(name: string) {
  const r = record(name);
  return { record: r, output: OptimizeSchema.parse(r.output) };
}

/** The test row of `phase` (v0, UT, UTCO) for `target` (obs, hist, both): `UT obs=UTCO obs`. */
function versionRow(rows: Row[], phase: string, target: string): Row {
  const row = rows.find((x) => (x.version ?? '').split('=').includes(`${phase} ${target}`));
  if (!row) throw new Error(`no ${phase} ${target} row`);
  return row;
}

/** README: the main job's test accuracy of v0, UT and UTCO per target, shipped and seed 2. */
export function readmeOptimize(): string {
  const sets = ['optimize-shipped', 'optimize-seed2'].map(optimizeOf);
  const test = sets.map(({ output }) => {
    const t = output.run.summary.tables.find((x) => x.split === 'test');
    if (!t) throw new Error('no test table');
    return t.rows;
  });
  const lines = [
    '| `acon optimize`, acc % obs / hist / both | shipped | seed 2 |',
    '|---|---|---|',
    ...['v0', 'UT', 'UTCO'].map(
      (phase) =>
        `| ${phase} | ${test.map((rows) => ['obs', 'hist', 'both'].map((t) => pct(versionRow(rows, phase, t).accuracy)).join(' / ')).join(' | ')} |`,
    ),
    '',
    `The shipped set's verdicts on test and on the pair that would become active, as \`acon optimize --bench apptown\` prints them:`,
    '',
    '```',
    verdictLines(sets[0]!.output.stdout, 'test'),
    verdictLines(sets[0]!.output.stdout, 'pair'),
    '```',
    '',
    measuredLine(sets.map((s) => s.record)),
  ];
  return lines.join('\n');
}

/** The `verdict SPLIT:` line of an optimize's output, with its continuation lines. */
export function verdictLines(stdout: string, split: string): string {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`verdict ${split}:`));
  if (start < 0) throw new Error(`no verdict ${split} line`);
  let end = start + 1;
  while (end < lines.length && lines[end]!.startsWith('  ')) end += 1;
  return lines.slice(start, end).join('\n');
}

/** docs/results.md: the optimize's verdict on test, as printed. */
export function resultsVerdict(): string {
  const { output, record: r } = optimizeOf('optimize-shipped');
  return ['```', verdictLines(output.stdout, 'test'), '```', '', measuredLine([r])].join('\n');
}

/** docs/results.md, inline: how large the README optimize's report is. */
export function resultsReportSize(): string {
  const { output, record: r } = optimizeOf('optimize-shipped');
  const mb = (output.reportBytes / 1e6).toFixed(1);
  return `the report of the README optimize (${commitOf(r)}, ${day(r.date)}: a run of ${int(output.rollouts)} rollouts) is ${mb} MB`;
}

/** docs/results.md: what a compare on one task prints. */
export function resultsCompareOneTask(): string {
  const r = record('compare-one-task');
  const stdout = z.object({ stdout: z.string() }).parse(r.output).stdout.trimEnd();
  return ['```', `$ ${r.commands[0]}`, stdout, '```', '', measuredLine([r])].join('\n');
}

/** docs/benchmarks.md: the MCP baseline table on dev. */
export function mcpCompare(): string {
  const { rows, record: r, models } = compareRows('mcp-compare');
  const label = (c: string) => (c.startsWith('acon[') ? `acon (${c.slice(5, -1)})` : c);
  return [
    '| condition | accuracy | mean peak tokens | mean steps |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (x) =>
        `| ${label(x.condition)} | ${pct(x.accuracy)}% | ${int(x.meanPeakTokens)} | ${x.meanSteps.toFixed(1)} |`,
    ),
    '',
    `SIMULATED (${models}), \`${r.commands[0]}\`, ${r.seconds.toFixed(0)} s wall. ${measuredLine([r])}`,
  ].join('\n');
}

/** One optimize's figures from `npm run bench:optimize-cost`'s output. */
function costRounds(stdout: string): { cpuS: number; wallS: number }[] {
  const wall = [...stdout.matchAll(/^wall time:\s+([\d.]+) s/gm)].map((m) => Number(m[1]));
  const cpu = [...stdout.matchAll(/^CPU time:\s+([\d.]+) s/gm)].map((m) => Number(m[1]));
  if (wall.length === 0 || wall.length !== cpu.length) throw new Error('no wall/CPU lines');
  return wall.map((w, i) => ({ wallS: w, cpuS: cpu[i]! }));
}

const range = (xs: number[]) => {
  const lo = Math.min(...xs).toFixed(0);
  const hi = Math.max(...xs).toFixed(0);
  return lo === hi ? lo : `${lo}–${hi}`;
};

/** README, inline: the main job's cost as `npm run bench:optimize-cost` printed it. */
export function readmeCost(): string {
  const r = record('optimize-cost');
  const { stdout } = CostSchema.parse(r.output);
  const rounds = costRounds(stdout);
  const cpu = range(rounds.map((x) => x.cpuS));
  const wall = range(rounds.map((x) => x.wallS));
  // The load the bench printed before and after each optimize, not the whole measurement's.
  const loads = [...stdout.matchAll(/^load (?:before|after):\s+([\d.]+)/gm)].map((m) =>
    Number(m[1]),
  );
  const load =
    loads.length > 0 ? `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}` : '?';
  return `Its cost, as \`${r.commands[0]}\` prints it (${rounds.length} runs on ${commitOf(r)}, ${day(r.date)}, a shared ${r.cpus}-core machine at load average ${load}): ${cpu} s of CPU and ${wall} s of wall time (wall time grows with the load; the CPU time much less).`;
}

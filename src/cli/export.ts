import { Option, type Command } from 'commander';
import { asUsage } from './library-errors.js';
import { UsageError } from './usage-error.js';
import type { runConditions as RunConditions } from '../experiment/index.js';
import { DB_OPTION } from './shared-options.js';

// Only commander loads at start-up; the option schemas, store, tokenizer and exporter load
// inside the actions (`acon --help` stays fast, issue #28).

const ROLES = ['obs', 'hist', 'agent'] as const;
const FORMATS = ['openai', 'trl', 'sharegpt', 'axolotl'] as const;

type ExportRaw = {
  run?: string;
  role: (typeof ROLES)[number];
  format: (typeof FORMATS)[number];
  out: string;
  includeFailed?: boolean;
  condition?: string[];
  guidelines?: string;
  from: 'ut' | 'final';
  valRatio?: string;
  maxTokens?: string;
  overflow: 'drop' | 'truncate';
  seed?: string;
  teacher?: string | boolean;
  bench: string;
  split: string;
  qaData?: string;
  provider?: 'sim' | 'openai';
  db?: string;
  json?: boolean;
  config?: string;
};

export function registerExport(program: Command): void {
  const cmd = program
    .command('export')
    .description(
      "export the teacher's compressor calls (or agent turns) of a run as a fine-tuning set for a student model",
    );
  addExportOptions(cmd);
  cmd.addOption(
    new Option(
      '--from <versions>',
      'which guideline versions of the optimize run: final (after both phases: the guidelines a deployment runs, so the student learns the compressor it replaces; paper v3 distils "the optimized compressor") or ut (after the utility phase only: compressions that keep more)',
    )
      .choices(['ut', 'final'])
      .default('final'),
  );
  cmd.action(exportAction);
}

function addExportOptions(cmd: Command): void {
  cmd
    .addOption(new Option('--role <role>', 'what to export').choices(ROLES).makeOptionMandatory())
    .addOption(
      new Option('--format <format>', 'training-file format')
        .choices(FORMATS)
        .makeOptionMandatory(),
    )
    .requiredOption(
      '--out <file>',
      'training file (JSONL); .val, .meta.json and sidecars go next to it',
    )
    .option(
      '--run <id>',
      'source run (default: the newest optimize run whose final guideline of the role is active, else the newest optimize run; of --bench when given)',
    )
    .option('--include-failed', 'also export calls of failed rollouts')
    .option(
      '--condition <names>',
      'condition labels or strategies, comma-separated or repeated; labels may contain commas: acon[obs-0008,hist-0010] (default: acon,naive for obs/hist; all for agent)',
      (value: string, prev: string[] | undefined) => [...(prev ?? []), ...conditionList(value)],
    )
    .option(
      '--guidelines <ids>',
      'guideline versions whose rollouts are exported, e.g. hist-0010, or "all" (default: the final active version of the role; both for agent)',
    )
    .option('--val-ratio <r>', 'share of tasks held out for validation, 0–0.9 (split by task)', '0')
    .option(
      '--max-tokens <n>',
      'longest example in tokens (o200k_base, framing and tools included)',
    )
    .addOption(
      new Option(
        '--overflow <mode>',
        'an example over --max-tokens is dropped or has its input truncated',
      )
        .choices(['drop', 'truncate'])
        .default('drop'),
    )
    .option('--seed <n>', 'seed of the train/validation split (default: config seed)')
    .option(
      '--teacher [guidelines]',
      'run the teacher first: bare = only when there is no run, with the active guidelines; obs@V,hist@V = always, with those versions',
    )
    .option(
      '--bench <name>',
      'benchmark for --teacher (apptown, appworld, qa or mcp); when typed, the default run is an optimize run of it',
      'apptown',
    )
    .option('--qa-data <file>', 'qa: HotpotQA-format questions for --teacher (default: qa.data)')
    .option(
      '--split <names>',
      'benchmark splits whose rollouts are exported, comma-separated, or "all"; also the split --teacher runs on (dev/test print a warning)',
      'train',
    )
    .addOption(
      new Option('--provider <name>', 'LLM provider for --teacher').choices(['sim', 'openai']),
    )
    .option(...DB_OPTION)
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      `
By default the export is the clean teacher set: successful rollouts of the train split, under
the final guideline of the role, from the newest optimize run whose final guidelines are the
active ones (else the newest optimize run, with a warning naming it). A compare or run is never
taken without --run. Next to the data, <name>.meta.json counts the examples per split and per
guideline version ("sources").

Examples:
  $ acon export --role hist --format openai --out runs/export/hist.jsonl
  $ acon export --role hist --format openai --out all.jsonl --split all --guidelines all
  $ acon export --role obs --format openai --out o.jsonl --condition 'acon[obs-0008,hist-0010]'
  $ acon export --role obs --format trl --out obs.jsonl --val-ratio 0.2 --max-tokens 8192 --overflow truncate
  $ acon export --role hist --format sharegpt --out data/acon_hist.jsonl    # + data/dataset_info.json
  $ acon export --role obs --format axolotl --out obs.jsonl                 # + obs.axolotl.yaml
  $ acon export --role agent --format openai --run run-20261122-031500-ab12 --include-failed --json
  $ acon export --role hist --format openai --out hist.jsonl --teacher obs@3,hist@2
Then check the file: acon lint hist.jsonl --format openai`,
    );
}

/** `acon export`: parse and check the options, run the exporter, print its summary. */
async function exportAction(_o: ExportRaw, cmd: Command): Promise<void> {
  const raw = cmd.optsWithGlobals<ExportRaw>();
  const { ExportCliSchema } = await import('./export-options.js');
  const nums = ExportCliSchema.safeParse(raw);
  if (!nums.success) throw new UsageError(nums.error.issues[0]!.message);
  if (raw.overflow === 'truncate' && nums.data.maxTokens === undefined) {
    throw new UsageError('--overflow truncate needs --max-tokens N');
  }
  // An export is one streaming pass whose live heap stays flat (~60 MB on a 10,000-rollout
  // store); by default V8 lets the heap grow to 4× the live set between collections, which
  // showed as 550–800 MB of resident memory (issue #16). 1.2× keeps it near the live set.
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--heap-growing-percent=20');
  const { loadConfig } = await import('../config/index.js');
  const { openRunStore } = await import('../store/index.js');
  const { exportDataset } = await import('../export/index.js');
  const { terminalWidth, renderExportSummary } = await import('../report/index.js');
  const { GuidelineStore } = await import('../guidelines/index.js');
  const { config } = loadConfig({ file: raw.config });
  const splits = raw.split === 'all' ? null : commaList(raw.split);
  if (splits !== null && splits.length === 0)
    throw new UsageError('--split needs a split name, or "all"');
  if (raw.teacher !== undefined && raw.teacher !== false && splits?.length !== 1) {
    throw new UsageError(
      '--teacher runs on one split: give --split with a single name, e.g. --split train',
    );
  }
  const guidelines =
    raw.guidelines === undefined
      ? undefined
      : raw.guidelines === 'all'
        ? null
        : commaList(raw.guidelines);
  const dbPath = raw.db ?? config.run.db;
  // Without --teacher an export only reads the database.
  const store = openRunStore(dbPath, { mode: raw.teacher ? 'write' : 'read' });
  try {
    const runTeacher = await teacherRunner(raw, dbPath);
    const summary = await asUsage(() =>
      exportDataset(
        {
          run: raw.run,
          bench: cmd.getOptionValueSource('bench') === 'cli' ? raw.bench : null,
          role: raw.role,
          format: raw.format,
          out: raw.out,
          includeFailed: raw.includeFailed === true,
          conditions: raw.condition && raw.condition.length > 0 ? raw.condition : null,
          splits,
          guidelines,
          valRatio: nums.data.valRatio ?? 0,
          maxTokens: nums.data.maxTokens ?? null,
          overflow: raw.overflow,
          seed: nums.data.seed ?? config.seed,
          teacher: raw.teacher ?? false,
        },
        {
          store,
          runTeacher,
          activeGuidelines: () => {
            try {
              const g = new GuidelineStore();
              return { obs: g.activeId('obs'), hist: g.activeId('hist') };
            } catch {
              return null;
            }
          },
        },
      ),
    );
    for (const w of summary.warnings) process.stderr.write(`warning: ${w}\n`);
    process.stdout.write(
      raw.json
        ? `${JSON.stringify(summary, null, 2)}\n`
        : renderExportSummary(summary, {
            color: process.stdout.isTTY === true,
            width: terminalWidth(),
          }),
    );
  } finally {
    store.close();
  }
}

type LintRaw = { format: (typeof FORMATS)[number]; maxTokens?: string; json?: boolean };

export function registerLint(program: Command): void {
  program
    .command('lint')
    .description("check a training file against its format's rules and report problems by line")
    .argument('<file>', 'the JSONL file to check')
    .addOption(
      new Option('--format <format>', "the file's format").choices(FORMATS).makeOptionMandatory(),
    )
    .option('--max-tokens <n>', 'also flag examples longer than this many tokens')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Checks: valid JSON per line and the format's line schema; system message first; user and
assistant turns alternating; each tool call followed by its result; a non-empty final assistant
message; ShareGPT "from" values and positions; TRL prompt/completion shapes; --max-tokens.
Exits with code 1 when there are problems.

Examples:
  $ acon lint hist.jsonl --format openai
  $ acon lint data/acon_hist.jsonl --format sharegpt --max-tokens 8192 --json`,
    )
    .action(async (file: string, raw: LintRaw) => {
      const { LintMaxTokensSchema } = await import('./export-options.js');
      const maxTokens = LintMaxTokensSchema.safeParse(raw.maxTokens);
      if (!maxTokens.success) throw new UsageError(maxTokens.error.issues[0]!.message);
      const { lintFile, LintFailedError } = await import('../export/index.js');
      const { renderLintReport } = await import('../report/index.js');
      const report = await lintFile(file, {
        format: raw.format,
        maxTokens: maxTokens.data ?? null,
      });
      process.stdout.write(
        raw.json
          ? `${JSON.stringify(report, null, 2)}\n`
          : renderLintReport(report, { color: process.stdout.isTTY === true }),
      );
      if (report.problems.length > 0) throw new LintFailedError(file, report.problems.length);
    });
}

function commaList(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/**
 * Condition names split on the commas outside brackets, so a label such as
 * `acon[obs-0008,hist-0010]` stays whole.
 * @example conditionList('acon[obs-0008,hist-0010],naive') // ['acon[obs-0008,hist-0010]', 'naive']
 */
export function conditionList(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '[') depth++;
    if (ch === ']') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((x) => x.trim()).filter(Boolean);
}

/**
 * The `runTeacher` hook of the exporter: runs the `acon` strategy on the split with the given
 * guidelines through the run orchestration (src/experiment/run-conditions.ts) and returns the run
 * id. Undefined when that module is not available, so --teacher fails with a clear message.
 */
async function teacherRunner(
  raw: ExportRaw,
  db: string,
): Promise<((guidelines: string | null) => Promise<string>) | undefined> {
  if (raw.teacher === undefined || raw.teacher === false) return undefined;
  let runConditions: typeof RunConditions;
  try {
    ({ runConditions } = await import('../experiment/index.js'));
  } catch {
    return undefined;
  }
  return async (guidelines) => {
    const { withSession, typedCommand } = await import('./session.js');
    const options = {
      config: raw.config,
      provider: raw.provider,
      db,
      bench: raw.bench,
      qaData: raw.qaData,
      roles: ['agent', 'obs_compressor', 'hist_compressor'] as const,
    };
    return withSession(options, async (session) => {
      process.stderr.write(
        `running the teacher (acon, ${guidelines ?? 'active guidelines'}) on ${raw.bench}/${raw.split}…\n`,
      );
      const result = await runConditions({
        session,
        kind: 'run',
        params: {
          bench: raw.bench,
          split: raw.split,
          strategies: ['acon'],
          tasks: null,
          guidelines,
        },
        command: typedCommand(),
      });
      return result.provenance.runId;
    });
  };
}

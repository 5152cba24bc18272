import type { Command } from 'commander';
import { Option } from 'commander';
import type { StrategyName } from '../agent/index.js';
import { STRATEGY_NAMES } from '../agent/catalog.js';
import { cliText, forFlag } from './library-errors.js';
import { UsageError } from './usage-error.js';
import type { RunConditionsResult, RunParams } from '../experiment/index.js';
import type { CompressorFlags } from '../config/index.js';
import { nameList } from './lists.js';
import { checked, positiveInt, positiveNumber } from './numbers.js';
import { addConfirmOptions, confirmFromFlags, mustConfirm, type ConfirmFlags } from './confirm.js';
import {
  ALLOW_TASK_CHANGES_OPTION,
  DB_OPTION,
  SKIP_INVALID_TASKS_OPTION,
} from './shared-options.js';

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

type RawOpts = {
  bench: string;
  split: string;
  strategy?: string;
  strategies?: string;
  tasks?: string;
  maxTasks?: string;
  taskFile?: string;
  concurrency?: string;
  guidelines?: string;
  json?: boolean;
  wide?: boolean;
  resume?: string;
  config?: string;
  provider?: 'sim' | 'openai';
  cache?: boolean;
  budgetUsd?: string;
  appworldUrl?: string[];
  qaData?: string;
  db?: string;
  skipInvalidTasks?: boolean;
  allowTaskChanges?: boolean;
} & CompressorFlags &
  ConfirmFlags;

const DEFAULT_STRATEGIES = 'raw,fifo,masking,summary,naive,acon';

/** Options the user typed (not commander defaults): the ones a resumed run must not contradict. */
export function explicitFlags(cmd: Command): Set<string> {
  return new Set(Object.keys(cmd.opts()).filter((key) => cmd.getOptionValueSource(key) === 'cli'));
}

function commonOptions(cmd: Command): Command {
  return addConfirmOptions(cmd)
    .option(
      '--bench <name>',
      'benchmark: apptown (offline), appworld, qa (offline) or mcp (MCP servers)',
      'apptown',
    )
    .option('--split <name>', 'task split', 'dev')
    .option('--tasks <ids>', 'only these task ids, comma-separated')
    .option(
      '--max-tasks <n>',
      'only the first N tasks of the split (quick trials)',
      checked.positiveInt('--max-tasks'),
    )
    .option('--task-file <file>', 'task ids, one per line (AppWorld)')
    .option(
      '--concurrency <n>',
      'rollouts in flight (default: run.concurrency)',
      checked.positiveInt('--concurrency'),
    )
    .option('--guidelines <spec>', 'guideline versions for acon, e.g. obs@3,hist@active')
    .addOption(
      new Option('--provider <name>', 'LLM provider for every role').choices(['sim', 'openai']),
    )
    .option('--no-cache', 'do not answer from the LLM call cache')
    .option(
      '--budget-usd <usd>',
      'stop cleanly once this much is spent',
      checked.positiveNumber('--budget-usd'),
    )
    .option('--appworld-url <url...>', 'AppWorld environment server(s); several run in parallel')
    .option(
      '--compressor-model <model>',
      'model of both compressors (default: roles.*_compressor.model)',
    )
    .option('--obs-compressor-model <model>', 'model of the observation compressor')
    .option('--hist-compressor-model <model>', 'model of the history compressor')
    .option(
      '--compressor-base-url <url>',
      'OpenAI-compatible server of the compressors only, e.g. a student on vLLM (default: their configured endpoint)',
    )
    .option(
      '--compressor-key-env <var>',
      "variable holding that server's key (default: the default endpoint's)",
    )
    .option(
      '--qa-data <file>',
      'qa: HotpotQA-format questions instead of the generated encyclopedia',
    )
    .option(...DB_OPTION)
    .option(...SKIP_INVALID_TASKS_OPTION)
    .option(...ALLOW_TASK_CHANGES_OPTION)
    .option(
      '--resume <run>',
      'continue an interrupted run exactly as recorded (provider, models, config, tasks)',
    )
    .option('--json', 'print machine-readable JSON instead of a table')
    .option(
      '--wide',
      'every column at full length (default: fit the terminal, 100 columns if unknown)',
    );
}

export function registerRun(program: Command): void {
  commonOptions(
    program
      .command('run')
      .description('run the agent on a split under one context strategy and print the results'),
  )
    .option('--strategy <name>', `context strategy: ${STRATEGY_NAMES.join(', ')}`, 'acon')
    .addHelpText(
      'after',
      `
Examples:
  $ acon run --bench apptown --split dev --strategy masking
  $ acon run --strategy acon --guidelines obs@2,hist@active --tasks dev-001-music-phone-wallet,dev-002-shop-wallet-phone-music
  $ acon run --bench qa --split dev --strategy naive
  $ acon run --bench appworld --tasks 50e1ac9_1,fac291d_2 --provider openai
  $ acon run --provider openai --split test --compressor-base-url http://127.0.0.1:8001/v1 --compressor-model student
  $ acon run --resume run-20261122-031500-ab12`,
    )
    .action(async (_opts: RawOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<RawOpts>();
      await runAction(opts, [opts.strategy ?? 'acon'], 'run', explicitFlags(cmd));
    });
}

export function registerCompare(program: Command): void {
  commonOptions(
    program
      .command('compare')
      .description(
        'run several context strategies on the same tasks and compare them side by side',
      ),
  )
    .option('--strategies <names>', 'comma-separated strategies', DEFAULT_STRATEGIES)
    .addHelpText(
      'after',
      `
Examples:
  $ acon compare --bench apptown --split dev
  $ acon compare --bench qa --split dev --strategies raw,naive --json
  $ acon compare --bench qa --qa-data hotpot_dev.json --split test
  $ acon compare --strategies raw,masking,acon --guidelines obs@latest,hist@latest --json
  $ acon compare --strategies acon --provider openai --compressor-base-url http://127.0.0.1:8001/v1 --compressor-model student`,
    )
    .action(async (_opts: RawOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<RawOpts>();
      const names = list(opts.strategies ?? '');
      if (names.length === 0) {
        throw new UsageError(
          `--strategies names no strategy; give a comma-separated list, e.g. raw,masking,acon (default: ${DEFAULT_STRATEGIES})`,
        );
      }
      await runAction(opts, names, 'compare', explicitFlags(cmd));
    });
}

const isStrategyName = (n: string): n is StrategyName =>
  (STRATEGY_NAMES as readonly string[]).includes(n);

function parseStrategies(names: string[]): StrategyName[] {
  return names.map((n) => {
    if (!isStrategyName(n)) {
      throw new UsageError(`unknown strategy "${n}"; use one of: ${STRATEGY_NAMES.join(', ')}`);
    }
    return n;
  });
}

async function runAction(
  opts: RawOpts,
  strategyNames: string[],
  kind: 'run' | 'compare',
  typed: Set<string>,
) {
  // Heavy modules (SQLite, openai, tokenizer) load only when a command runs: `acon --help` stays fast.
  const { runConditions, conditionsFor, selectTasks, RunParamsSchema, formatRunEstimate } =
    await import('../experiment/index.js');
  const { withSession, typedCommand, boundRolloutHeap } = await import('./session.js');
  const { recordedParams, refuseConflicts } = await import('./resume.js');
  const { createProgress } = await import('./progress.js');
  boundRolloutHeap();
  const given = givenParams(opts, strategyNames);
  let params = given;
  await withSession(
    {
      config: opts.config,
      provider: opts.provider,
      cache: opts.cache,
      resume: opts.resume,
      resumes: [kind],
      onResume: (run) => {
        params = recordedParams(run, RunParamsSchema);
        refuseConflicts(run.id, changedFlags(given, params, typed, kind));
        return { taskIds: params.taskIds ?? params.tasks ?? undefined };
      },
      skipInvalidTasks: opts.skipInvalidTasks,
      allowTaskChanges: opts.allowTaskChanges,
      budgetUsd: positiveNumber(opts.budgetUsd, '--budget-usd'),
      db: opts.db,
      bench: given.bench,
      appworldUrls: opts.appworldUrl,
      taskIds: given.tasks ?? undefined,
      taskFile: opts.taskFile,
      compressor: {
        compressorModel: opts.compressorModel,
        obsCompressorModel: opts.obsCompressorModel,
        histCompressorModel: opts.histCompressorModel,
        compressorBaseUrl: opts.compressorBaseUrl,
        compressorKeyEnv: opts.compressorKeyEnv,
      },
      qaData: opts.qaData,
      roles: ['agent', 'obs_compressor', 'hist_compressor'],
      // A guideline version that does not exist fails before the database is touched.
      validate: async ({ bench, guidelines, store, db }) => {
        await selectTasks({ bench }, params.split, params.taskIds ?? params.tasks);
        const given = params.guidelineVersions ?? params.guidelines;
        if (params.strategies.includes('acon')) {
          const { checkGuidelinesFolder } = await import('../guidelines/index.js');
          checkGuidelinesFolder(guidelines, given, store.learnedGuidelineIds(), db);
        }
        const { GUIDELINE_PAIR } = await import('../guidelines/index.js');
        await forFlag('--guidelines', GUIDELINE_PAIR, () =>
          conditionsFor(params.strategies, given, guidelines),
        );
      },
    },
    async (session) => {
      const progress = createProgress({ label: kind, spentUsd: () => session.llm.spentUsd() });
      const result = await runConditions({
        session,
        kind,
        params,
        resume: opts.resume,
        command: typedCommand(),
        concurrency: positiveInt(opts.concurrency, '--concurrency'),
        warn: (line, options) => process.stderr.write(`warning: ${cliText(line, options)}\n`),
        // A paid run above --confirm-above prints its estimate and asks, as optimize does.
        onEstimate: async (estimate) => {
          if (!mustConfirm(opts, estimate)) return;
          if (!opts.json) process.stderr.write(`${formatRunEstimate(estimate)}\n`);
          await confirmFromFlags(opts, estimate);
        },
        onProgress: (done, total, info, outcome) =>
          progress.update('rollouts', done, total, outcome, info),
      }).finally(() => progress.stop());
      await printResult(result, opts, kind, session.config.run.db);
    },
  );
}

/** The flags typed again with `--resume`, beside what the run recorded (for refuseConflicts). */
function changedFlags(
  given: RunParams,
  recorded: RunParams,
  typed: Set<string>,
  kind: 'run' | 'compare',
): { flag: string; given: unknown; recorded: unknown }[] {
  const strategyFlag = kind === 'run' ? 'strategy' : 'strategies';
  const flags: [flag: string, option: string, key: keyof RunParams][] = [
    ['--bench', 'bench', 'bench'],
    ['--split', 'split', 'split'],
    [`--${strategyFlag}`, strategyFlag, 'strategies'],
    ['--tasks', 'tasks', 'tasks'],
    ['--max-tasks', 'maxTasks', 'maxTasks'],
    ['--guidelines', 'guidelines', 'guidelines'],
  ];
  return flags.map(([flag, option, key]) => ({
    flag,
    given: typed.has(option) ? given[key] : undefined,
    recorded: recorded[key] ?? null,
  }));
}

/** The result as JSON, or the condition table, verdict, infrastructure failures and run id. */
async function printResult(
  result: RunConditionsResult,
  opts: RawOpts,
  kind: 'run' | 'compare',
  db: string,
): Promise<void> {
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const { conditionTable, runIdLine, verdictText } = await import('../report/index.js');
  const { terminalWidth } = await import('../report/index.js');
  const { infraFailureLines } = await import('../report/index.js');
  const fit = { width: terminalWidth(), wide: opts.wide };
  const resume = `acon ${kind} --resume ${result.provenance.runId}`;
  process.stdout.write(
    conditionTable(result.conditions, result.provenance, fit) +
      verdictText(result.verdict, fit) +
      infraFailureLines(result.infraFailures, resume, fit.wide ? Infinity : fit.width) +
      runIdLine(result.provenance.runId, db, fit),
  );
}

/** The run's parameters as the flags give them. */
function givenParams(opts: RawOpts, strategyNames: string[]): RunParams {
  return {
    bench: opts.bench,
    split: opts.split,
    strategies: parseStrategies(strategyNames),
    tasks:
      opts.tasks === undefined
        ? null
        : nameList(
            opts.tasks,
            '--tasks',
            'dev-001-music-phone-wallet,dev-002-shop-wallet-phone-music',
          ),
    guidelines: opts.guidelines ?? null,
    maxTasks: positiveInt(opts.maxTasks, '--max-tasks') ?? null,
  };
}

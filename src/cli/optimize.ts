import type { Command } from 'commander';
import { Option } from 'commander';
import { cliText, forFlag } from './library-errors.js';
import { UsageError } from './usage-error.js';
import { nameList } from './lists.js';
import { checked, positiveInt, positiveNumber, wholeNumberIn } from './numbers.js';
import { addConfirmOptions, confirmFromFlags } from './confirm.js';
import type { GuidelineStore } from '../guidelines/index.js';
import type { OptimizeParams } from '../optimize/index.js';
import type { RunStore } from '../store/index.js';
import type { refuseConflicts as RefuseConflicts } from './resume.js';
import type { SessionOptions } from './session.js';
import { explicitFlags } from './run.js';
import type { RawOpts } from './optimize-opts.js';
import {
  ALLOW_TASK_CHANGES_OPTION,
  DB_OPTION,
  SKIP_INVALID_TASKS_OPTION,
  WIDE_OPTION,
} from './shared-options.js';

/** What 0 means for a task-subset flag, in its message. */
const ALL_TASKS = ' (0 for all tasks)';

const OPTIMIZE_HELP = `
Analyzers and updaters see train rollouts only; candidates are selected on the selection
split (--selection heldout; --selection reference selects on train tasks, as the paper does);
the evaluation split is used only by the final table. While one guideline is tuned,
only its own compressor runs (config optimize.isolate, default true). The run ends with the
final guidelines on the train split: the default set of \`acon export\`.

The optimizer (analyzer and updater roles) defaults to gpt-4.1 with the updater sampled at
temperature 1.0; the paper (v3) uses o3 as its optimizer. For a paper-faithful run set
roles.updater.model and roles.analyzer.model to o3 in acon.config.yaml, or ACON_ROLES__UPDATER__MODEL=o3.
A reasoning model (o1, o3, o4*, gpt-5*) takes no temperature (acon sends none, and
max_completion_tokens instead of max_tokens); the K candidates still differ, because each
updater call gets its own seeded sample of the analyses and its own seed.

Examples:
  $ acon optimize --bench apptown                       offline, simulated LLM
  $ acon optimize --bench apptown --dry-run             only the plan and cost estimate
  $ acon optimize --bench qa                            multi-objective QA, offline
  $ acon optimize --target obs --phases ut --candidates 3
  $ acon optimize --bench appworld --provider openai --budget-usd 20
  $ acon optimize --traces run-20261122-031500-ab12     from recorded conversations (replay)
  $ acon optimize --resume run-20261122-031500-ab12`;

export function registerOptimize(program: Command): void {
  const cmd = program
    .command('optimize')
    .description('learn compression guidelines: utility phase, then compression phase (ACON)');
  addMethodOptions(cmd);
  addRunOptions(cmd);
  cmd
    .option(
      '--traces <source>',
      'learn from recorded conversations instead of the environment: a run (run-…, run-…:CONDITION, proxy-…) or a JSONL file (docs/traces.md)',
    )
    .option('--skip-invalid', 'with --traces: use the valid lines of a file with bad lines')
    .addHelpText('after', OPTIMIZE_HELP)
    .action(async (_o: RawOpts, c: Command) => {
      const opts = c.optsWithGlobals<RawOpts>();
      const { isTraceOptimize, traceOptimizeAction } = await import('./optimize-traces.js');
      if (await isTraceOptimize(opts)) await traceOptimizeAction(opts, explicitFlags(c));
      else await optimizeAction(opts, explicitFlags(c));
    });
}

/** What is optimized and on which tasks. */
/** `--repeats`: why a repeat exists and how the rule counts it. */
const REPEATS_HELP =
  'run each selection task N times, each with its own sampling seed and rollout, so a real ' +
  "model's variance is seen; the paired rule counts every repeat (default: optimize.repeats = 1)";

function addMethodOptions(cmd: Command): void {
  cmd
    .option(
      '--bench <name>',
      'benchmark: apptown (offline), appworld, qa (offline) or mcp (MCP servers)',
      'apptown',
    )
    .addOption(
      new Option('--target <kind>', 'which guideline to optimize')
        .choices(['obs', 'hist', 'both'])
        .default('both'),
    )
    .option('--phases <list>', 'phases to run, in order: ut, co', 'ut,co')
    .option('--rounds <n>', 'rounds per phase', checked.positiveInt('--rounds'), '1')
    .option(
      '--candidates <k>',
      'candidates per update (default: optimize.candidates)',
      checked.positiveInt('--candidates'),
    )
    .option(
      '--train-split <name>',
      'split for rollouts and analyses (default: optimize.train_split, else train)',
    )
    .option(
      '--select-split <name>',
      'split that selects among candidates (default: optimize.select_split, else dev); its ' +
        'tasks should resemble those the guideline will meet: selection can only reject a ' +
        'guideline for what its tasks ask',
    )
    .option(
      '--eval-split <name>',
      'held-out split of the final table (default: optimize.eval_split, else the ' +
        "benchmark's: apptown test, appworld test_normal)",
    )
    .addOption(
      new Option(
        '--selection <mode>',
        'how candidates are chosen: heldout (selection split, the parent run there too, by the ' +
          'paired rule), reference (the paper: UT on D_cont, CO on D_succ of the train split, ' +
          'best accuracy, ties to fewest input tokens, the parent scored by its train rollouts) ' +
          'or reference-paired (those tasks, by the paired rule) (default: optimize.selection = heldout)',
      ).choices(['heldout', 'reference', 'reference-paired']),
    )
    .option(
      '--racing',
      'race the candidates by successive halving: after each rung of the selection tasks, drop those no outcome of the rest could get accepted, and keep the better half (default)',
    )
    .option('--no-racing', 'run every candidate on every selection task')
    .addOption(
      new Option(
        '--select-from <source>',
        'selection tasks: grouped (the train and selection splits pooled, whole task patterns ' +
          'held out for selection, seeded, as the test split holds them out) or split (the ' +
          'selection split as it is) (default: optimize.select_from, else grouped for apptown and ' +
          'mcp, split for the others or when a selection split is named)',
      ).choices(['split', 'grouped']),
    )
    .option('--repeats <n>', REPEATS_HELP, checked.positiveInt('--repeats'))
    .option('--guidelines <spec>', 'start from these versions, e.g. obs@0,hist@0 (default: active)')
    .option(
      '--max-tasks <n>',
      'use only the first N tasks of each split (quick trials)',
      checked.positiveInt('--max-tasks'),
    )
    .option(
      '--train-tasks <n>',
      'first N training tasks to use, 0 for all (default: optimize.train_tasks = 0, all)',
      checked.wholeNumberIn('--train-tasks', 0, undefined, ALL_TASKS),
    )
    .option(
      '--select-tasks <n>',
      'first N selection tasks to choose candidates on, 0 for all (default: optimize.select_tasks = 16); the evaluation split is always whole',
      checked.wholeNumberIn('--select-tasks', 0, undefined, ALL_TASKS),
    )
    .option(
      '--promote',
      'make the final versions active even after a trial run (default: only a full run does; a run with --max-tasks, --tasks or fewer --candidates than optimize.candidates is a trial)',
    )
    .option('--no-promote', 'never make the final versions active');
}

/** How the run goes: provider, budget, resume, environments, output. */
function addRunOptions(cmd: Command): void {
  addConfirmOptions(cmd)
    .option('--dry-run', 'print the plan and cost estimate, run nothing')
    .option(
      '--budget-usd <usd>',
      'stop cleanly once this much is spent (resume with a higher one)',
      checked.positiveNumber('--budget-usd'),
    )
    .option(
      '--max-rollouts <n>',
      'stop cleanly rather than start rollout N+1 of this run (resume with a higher one; default: none, or optimize.max_rollouts)',
      checked.positiveInt('--max-rollouts'),
    )
    .addOption(
      new Option('--provider <name>', 'LLM provider for every role').choices(['sim', 'openai']),
    )
    .option('--no-cache', 'do not answer from the LLM call cache')
    .option('--appworld-url <url...>', 'AppWorld environment server(s)')
    .option('--qa-data <file>', 'qa: HotpotQA-format questions (default: qa.data)')
    .option('--tasks <ids>', 'AppWorld: task ids when APPWORLD_ROOT is not set')
    .option('--task-file <file>', 'AppWorld: task ids, one per line')
    .option(...DB_OPTION)
    .option(...SKIP_INVALID_TASKS_OPTION)
    .option(...ALLOW_TASK_CHANGES_OPTION)
    .option(
      '--resume <run>',
      'continue an interrupted optimize run exactly as recorded (provider, models, config, params)',
    )
    .option('--json', 'print the result as JSON')
    .option(...WIDE_OPTION);
}

async function optimizeAction(opts: RawOpts, typed: Set<string>) {
  const { withSession, typedCommand, boundRolloutHeap } = await import('./session.js');
  const { recordedParams, refuseConflicts } = await import('./resume.js');
  boundRolloutHeap();
  const { optimize } = await import('../optimize/index.js');
  const { OptimizeParamsSchema } = await import('../optimize/index.js');
  const { formatPlan } = await import('../optimize/index.js');
  const { terminalWidth, optimizeReport } = await import('../report/index.js');
  const { createProgress } = await import('./progress.js');
  const given = await optimizeParams(opts);
  let params = given;
  const err = process.stderr;
  await withSession(
    {
      ...sessionOptions(opts),
      onResume: (run) => {
        params = recordedParams(run, OptimizeParamsSchema);
        refuseChangedParams(run.id, given, params, typed, refuseConflicts);
        return undefined;
      },
      // Splits and the starting guideline versions fail before the database is touched.
      validate: async ({ bench, guidelines, store, db }) => {
        const { tasksOfSplit } = await import('../bench/index.js');
        for (const split of [params.trainSplit, params.selectSplit, params.evalSplit]) {
          await tasksOfSplit(bench, split, null);
        }
        if (!opts.resume) await checkStartGuidelines(params.guidelines, guidelines, store, db);
      },
    },
    async (session) => {
      const progress = createProgress({
        label: 'optimize',
        silent: opts.dryRun,
        spentUsd: () => session.llm.spentUsd(),
      });
      const result = await optimize(session, params, {
        resume: opts.resume,
        // Not a recorded param: a resumed run takes the limit it is given now, like --budget-usd.
        maxRollouts:
          positiveInt(opts.maxRollouts, '--max-rollouts') ?? session.config.optimize.max_rollouts,
        command: typedCommand(),
        log: (line) => {
          if (!opts.json) progress.log(line);
        },
        progress: (label, done, total, outcome) => progress.update(label, done, total, outcome),
        warn: (line, options) => err.write(`warning: ${cliText(line, options)}\n`),
        onPlan: async (plan) => {
          if (opts.dryRun && opts.json) process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
          else if (!opts.json || opts.dryRun)
            (opts.dryRun ? process.stdout : err).write(`${formatPlan(plan)}\n`);
          if (opts.dryRun && !opts.json && session.provider === 'sim' && !session.simulated) {
            process.stdout.write(
              `  note: ${params.bench} needs a real model; run it with --provider openai (the estimate uses the configured models' prices)\n`,
            );
          }
          progress.setPlannedTotal(plan.rollouts);
          if (opts.dryRun) return false;
          await confirmFromFlags(opts, plan);
          return true;
        },
      }).finally(() => progress.stop());
      if ('dryRun' in result) return;
      if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else {
        process.stdout.write(
          optimizeReport(result, session.config.run.db, {
            width: terminalWidth(),
            wide: opts.wide,
          }),
        );
        // Rollouts a model call failed by every attempt: not in the tables (issue #31, item 10).
        const { infraFailures } = await import('../store/index.js');
        const { infraFailureLines } = await import('../report/index.js');
        const failures = infraFailures(session.store, result.runId);
        const resume = `acon optimize --resume ${result.runId}`;
        process.stdout.write(infraFailureLines(failures, resume, terminalWidth()));
      }
    },
  );
}

/** A task-subset flag: N ≥ 1 tasks, or 0 for the whole split; the config default when absent. */
function subset(value: string | undefined, flag: string, fallback: number): number | null {
  const n = wholeNumberIn(value, flag, 0, undefined, ALL_TASKS) ?? fallback;
  return n === 0 ? null : n;
}

/** The optimize parameters from the flags, then the config file, then the benchmark's own splits. */
async function optimizeParams(opts: RawOpts): Promise<OptimizeParams> {
  const { loadConfig } = await import('../config/index.js');
  const { OptimizeParamsSchema, PhaseSchema } = await import('../optimize/index.js');
  const { DEFAULT_DECISION } = await import('../optimize/index.js');
  const { resolveSplits } = await import('../bench/index.js');
  const phases = opts.phases.split(',').map((p) => {
    const r = PhaseSchema.safeParse(p.trim());
    if (!r.success) throw new UsageError(`--phases: unknown phase "${p}"; use ut, co or ut,co`);
    return r.data;
  });
  // Flags fall back to the config file's optimize settings (a resumed run uses its record).
  const c = loadConfig({ file: opts.config }).config.optimize;
  // Flags, then the config, then the benchmark's own splits (appworld: train/dev/test_normal).
  const splits = resolveSplits(opts.bench, c, {
    train: opts.trainSplit,
    selection: opts.selectSplit,
    evaluation: opts.evalSplit,
    selectFrom: opts.selectFrom,
  });
  const candidates = positiveInt(opts.candidates, '--candidates') ?? c.candidates;
  // A trial (a few tasks, fewer candidates) must not replace what a full run made active.
  const trial =
    opts.maxTasks !== undefined || opts.tasks !== undefined || candidates < c.candidates;
  const given = OptimizeParamsSchema.parse({
    bench: opts.bench,
    target: opts.target,
    phases,
    rounds: positiveInt(opts.rounds, '--rounds') ?? c.rounds,
    candidates,
    trainSplit: splits.train,
    selectSplit: splits.selection,
    evalSplit: splits.evaluation,
    guidelines: opts.guidelines ?? null,
    promote: opts.promote ?? !trial,
    maxTasks: positiveInt(opts.maxTasks, '--max-tasks') ?? null,
    trainTasks: subset(opts.trainTasks, '--train-tasks', c.train_tasks),
    selectTasks: subset(opts.selectTasks, '--select-tasks', c.select_tasks),
    selection: opts.selection ?? c.selection,
    // The paired rule (docs/method.md): a UT tie needs 10% fewer peak tokens, a stated constant.
    decision: { alpha: c.alpha, margin: c.margin, tieTokenCut: DEFAULT_DECISION.tieTokenCut },
    racing: opts.racing ?? true,
    selectFrom: splits.selectFrom,
    repeats: positiveInt(opts.repeats, '--repeats') ?? c.repeats,
  });
  return given;
}

/** A resumed run keeps its recorded parameters; a typed flag that differs is refused. */
function refuseChangedParams(
  runId: string,
  given: OptimizeParams,
  recorded: OptimizeParams,
  typed: Set<string>,
  refuseConflicts: typeof RefuseConflicts,
): void {
  const flag = (name: string, key: keyof OptimizeParams, option = key as string) => ({
    flag: `--${name}`,
    given: typed.has(option) ? given[key] : undefined,
    recorded: recorded[key],
  });
  refuseConflicts(runId, [
    flag('bench', 'bench'),
    flag('target', 'target'),
    flag('phases', 'phases'),
    flag('rounds', 'rounds'),
    flag('candidates', 'candidates'),
    flag('train-split', 'trainSplit'),
    flag('select-split', 'selectSplit'),
    flag('eval-split', 'evalSplit'),
    flag('guidelines', 'guidelines'),
    flag(given.promote ? 'promote' : 'no-promote', 'promote'),
    flag('max-tasks', 'maxTasks'),
    flag('train-tasks', 'trainTasks'),
    flag('select-tasks', 'selectTasks'),
    flag('selection', 'selection'),
    flag(given.racing ? 'racing' : 'no-racing', 'racing'),
    flag('select-from', 'selectFrom'),
    flag('repeats', 'repeats'),
  ]);
}

/** What the session of an optimize run is opened with (the resume check aside). */
function sessionOptions(opts: RawOpts): SessionOptions {
  return {
    config: opts.config,
    provider: opts.provider,
    cache: opts.cache,
    resume: opts.resume,
    resumes: ['optimize'],
    skipInvalidTasks: opts.skipInvalidTasks,
    allowTaskChanges: opts.allowTaskChanges,
    dryRun: opts.dryRun,
    budgetUsd: positiveNumber(opts.budgetUsd, '--budget-usd'),
    db: opts.db,
    bench: opts.bench,
    planOnly: opts.dryRun === true,
    appworldUrls: opts.appworldUrl,
    taskIds:
      opts.tasks === undefined ? undefined : nameList(opts.tasks, '--tasks', '50e1ac9_1,fac291d_2'),
    taskFile: opts.taskFile,
    qaData: opts.qaData,
  };
}

/** The starting guidelines exist (and their folder, when the database learned some in it). */
async function checkStartGuidelines(
  spec: string | null,
  guidelines: GuidelineStore,
  store: RunStore,
  db: string,
): Promise<void> {
  const { GUIDELINE_PAIR, checkGuidelinesFolder, resolveGuidelinePair } =
    await import('../guidelines/index.js');
  checkGuidelinesFolder(guidelines, spec, store.learnedGuidelineIds(), db);
  await forFlag('--guidelines', GUIDELINE_PAIR, () => resolveGuidelinePair(spec, guidelines));
}

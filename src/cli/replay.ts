import type { Command } from 'commander';
import { Option } from 'commander';
import type { ReplayParams, ReplayResult } from '../experiment/index.js';
import { forFlag } from './library-errors.js';
import { UsageError } from './usage-error.js';
import {
  fileTraces,
  recordedRun,
  sourceBench,
  withTraces,
  type TraceCommandFlags,
} from './trace-input.js';
import type { SessionOptions } from './session.js';
import { explicitFlags } from './run.js';
import { DB_OPTION, WIDE_OPTION } from './shared-options.js';

type RawOpts = TraceCommandFlags & {
  traces?: string;
  guidelines: string;
  bench?: string;
  skipInvalid?: boolean;
  wide?: boolean;
};

const REPLAY_HELP = `
Each conversation is replayed step by step under each guideline pair (both compressors on):
where the compressed view differs from the full context, the agent model is asked for its next
action and compared with the recorded one (agreement); values the conversation uses later must
still be in view at the step that uses them (probe recall, no LLM call). Conversations with
outcome "failure" are left out: they are no full-context reference. These are replay metrics,
not accuracy. The sim provider's agent needs the benchmark's tasks (--bench, default: the source
run's benchmark, else apptown).

--guidelines items: v0 (the shipped pair), active, latest, one version (obs@2: hist active) or a
pair joined by + (obs@2+hist@1).

Examples:
  $ acon replay --traces run-20261122-031500-ab12
  $ acon replay --traces run-20261122-031500-ab12:raw --guidelines v0,active,obs@2+hist@1
  $ acon replay --traces conversations.jsonl --provider openai --json
  $ acon replay --resume run-20261122-041500-cd34`;

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('score guideline pairs on recorded conversations: agreement and probe recall')
    .option(
      '--traces <source>',
      'recorded conversations: a run (run-…, run-…:CONDITION, proxy-…) or a JSONL file',
    )
    .option('--guidelines <list>', 'guideline pairs to score, comma-separated', 'v0,active')
    .option(
      '--bench <name>',
      "benchmark whose tasks the sim agent follows (default: the source run's, else apptown)",
    )
    .option('--skip-invalid', 'replay the valid lines of a file with bad lines (default: refuse)')
    .addOption(
      new Option('--provider <name>', 'LLM provider for every role').choices(['sim', 'openai']),
    )
    .option('--no-cache', 'do not answer from the LLM call cache')
    .option('--budget-usd <usd>', 'stop cleanly once this much is spent')
    .option(...DB_OPTION)
    .option('--resume <run>', 'continue an interrupted replay run exactly as recorded')
    .option('--json', 'print the result as JSON')
    .option(...WIDE_OPTION)
    .addHelpText('after', REPLAY_HELP)
    .action(async (_o: RawOpts, c: Command) => {
      await replayAction(c.optsWithGlobals<RawOpts>(), explicitFlags(c));
    });
}

async function replayAction(opts: RawOpts, typed: Set<string>): Promise<void> {
  const { recordedParams, refuseChangedParams } = await import('./resume.js');
  const { ReplayParamsSchema, runReplay } = await import('../experiment/index.js');
  const { GUIDELINE_PAIR, resolvePairList } = await import('../guidelines/index.js');
  if (!opts.resume && opts.traces === undefined) {
    throw new UsageError('give --traces (a run id or a JSONL file), or --resume RUN');
  }
  let params: ReplayParams = {
    traces: opts.traces ?? '',
    guidelines: opts.guidelines,
    skipInvalid: opts.skipInvalid === true,
  };
  const { loadConfig } = await import('../config/index.js');
  const db = opts.db ?? loadConfig({ file: opts.config }).config.run.db;
  const recorded = opts.resume ? await recordedRun(db, opts.resume) : null;
  if (recorded) {
    const given = params;
    params = recordedParams(recorded, ReplayParamsSchema);
    refuseChangedParams(recorded.id, typed, given, params, ['traces', 'guidelines']);
  }
  // A file is read and checked before anything opens: a bad line leaves no database behind.
  const early = await fileTraces(params);
  const bench = recorded?.bench ?? opts.bench ?? (await sourceBench(db, params.traces));
  let pairs: Awaited<ReturnType<typeof resolvePairList>> = [];
  const validate: SessionOptions['validate'] = async ({ guidelines }) => {
    pairs = await forFlag('--guidelines', GUIDELINE_PAIR, () =>
      resolvePairList(params.guidelines, guidelines),
    );
  };
  // The judge only where roles.judge is configured (the session drops an unconfigured one).
  const roles = ['agent', 'obs_compressor', 'hist_compressor', 'judge'] as const;
  const spec = { params, early, bench, resumes: ['replay'], roles, validate };
  await withTraces(opts, spec, async (session, loaded, recording) => {
    const result = await runReplay(session, params, {
      traces: loaded.traces,
      skippedLines: loaded.skipped.length,
      pairs,
      ...recording,
    });
    await printReplay(result, opts, session.config.run.db);
  });
}

async function printReplay(result: ReplayResult, opts: RawOpts, db: string): Promise<void> {
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const { replayTable, replayVerdict, terminalWidth } = await import('../report/index.js');
  const left =
    result.failedLeftOut > 0
      ? `\n${result.failedLeftOut} failed conversations left out (no full-context reference)`
      : '';
  const table = replayTable(result.rows, result, { width: terminalWidth(), wide: opts.wide });
  process.stdout.write(
    `${table}${left}\n${replayVerdict(result.rows)}\nstored in ${db} as run ${result.runId}\n`,
  );
}

import type { Config } from '../config/index.js';
import type {
  TraceOptimizeParams,
  TraceOptimizeParamsSchema as TraceOptimizeParamsSchemaType,
  TraceOptimizeResult,
} from '../optimize/index.js';
import { forFlag } from './library-errors.js';
import { UsageError } from './usage-error.js';
import { fileTraces, recordedRun, sourceBench, withTraces } from './trace-input.js';
import { positiveInt } from './numbers.js';
import type { SessionOptions } from './session.js';
import type { RawOpts } from './optimize-opts.js';

/** Whether this optimize learns from traces: `--traces`, or a resumed run that did. */
export async function isTraceOptimize(opts: RawOpts): Promise<boolean> {
  if (opts.traces !== undefined) return true;
  if (!opts.resume) return false;
  const run = await recordedRun(await dbOf(opts), opts.resume).catch(() => null);
  return run !== null && typeof (run.params as { traces?: unknown }).traces === 'string';
}

/** Flags of an environment optimize that mean nothing with --traces: refused, never ignored. */
const ENVIRONMENT_ONLY: [keyof RawOpts, string][] = [
  ['trainSplit', '--train-split'],
  ['selectSplit', '--select-split'],
  ['evalSplit', '--eval-split'],
  ['selection', '--selection'],
  ['maxTasks', '--max-tasks'],
  ['trainTasks', '--train-tasks'],
  ['selectTasks', '--select-tasks'],
  ['appworldUrl', '--appworld-url'],
  ['tasks', '--tasks'],
  ['taskFile', '--task-file'],
  ['dryRun', '--dry-run'],
  // Replay makes agent calls, not environment rollouts: --budget-usd bounds a trace optimize.
  ['maxRollouts', '--max-rollouts'],
];

function refuseEnvironmentFlags(typed: Set<string>): void {
  for (const [key, flag] of ENVIRONMENT_ONLY) {
    if (typed.has(key)) {
      throw new UsageError(
        `${flag} belongs to an environment optimize; with --traces the conversations are split by a seeded hash of their id (optimize.trace_train, optimize.trace_selection)`,
      );
    }
  }
}

/**
 * `acon optimize --traces SOURCE`: a file is read and checked before anything opens (a bad line
 * leaves no database behind); a run source is read from the database the run is stored in.
 */
export async function traceOptimizeAction(opts: RawOpts, typed: Set<string>): Promise<void> {
  refuseEnvironmentFlags(typed);
  const { recordedParams, refuseChangedParams } = await import('./resume.js');
  const { optimizeFromTraces, TraceOptimizeParamsSchema, DEFAULT_DECISION } =
    await import('../optimize/index.js');
  const { loadConfig } = await import('../config/index.js');
  const db = await dbOf(opts);
  const recorded = opts.resume ? await recordedRun(db, opts.resume) : null;
  let params = traceParams(
    opts,
    loadConfig({ file: opts.config }).config,
    TraceOptimizeParamsSchema,
    DEFAULT_DECISION.tieTokenCut,
  );
  if (recorded) {
    const given = params;
    params = recordedParams(recorded, TraceOptimizeParamsSchema);
    refuseChangedParams(recorded.id, typed, given, params, [
      'traces',
      'target',
      'phases',
      'guidelines',
    ]);
  }
  const early = await fileTraces(params);
  const bench =
    recorded?.bench ?? (typed.has('bench') ? opts.bench : await sourceBench(db, params.traces));
  const validate: SessionOptions['validate'] = async ({ guidelines }) => {
    const { GUIDELINE_PAIR, resolveGuidelinePair } = await import('../guidelines/index.js');
    if (opts.resume) return;
    await forFlag('--guidelines', GUIDELINE_PAIR, () =>
      resolveGuidelinePair(params.guidelines, guidelines),
    );
  };
  const spec = { params, early, bench, resumes: ['optimize'], validate };
  await withTraces(opts, spec, async (session, loaded, recording) => {
    const result = await optimizeFromTraces(session, params, {
      traces: loaded.traces,
      ...recording,
    });
    await printResult(result, opts, session.config.run.db);
  });
}

/** The parameters from the flags and the config (a resumed run uses its record instead). */
function traceParams(
  opts: RawOpts,
  config: Config,
  schema: typeof TraceOptimizeParamsSchemaType,
  tieTokenCut: number,
): TraceOptimizeParams {
  const { trace_train: train, trace_selection: selection } = config.optimize;
  if (train + selection > 1 || train === 0 || selection === 0) {
    throw new UsageError(
      `optimize.trace_train (${train}) and optimize.trace_selection (${selection}) must each be above 0 and sum to at most 1 (held-out gets the rest)`,
    );
  }
  return schema.parse({
    traces: opts.traces ?? '',
    skipInvalid: opts.skipInvalid === true,
    target: opts.target,
    phases: opts.phases.split(',').map((p) => p.trim()),
    rounds: positiveInt(opts.rounds, '--rounds') ?? config.optimize.rounds,
    candidates: positiveInt(opts.candidates, '--candidates') ?? config.optimize.candidates,
    guidelines: opts.guidelines ?? null,
    promote: opts.promote ?? true,
    split: { train: config.optimize.trace_train, selection: config.optimize.trace_selection },
    // The same paired rule as an environment optimize (cli/optimize.ts).
    decision: {
      alpha: config.optimize.alpha,
      margin: config.optimize.margin,
      tieTokenCut,
    },
  });
}

async function printResult(result: TraceOptimizeResult, opts: RawOpts, db: string): Promise<void> {
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const { replayTable, replayVerdict, terminalWidth } = await import('../report/index.js');
  const lines: string[] = [];
  for (const s of result.stages) {
    const scored = s.candidates.filter((c) => c.metrics !== null).length;
    lines.push(
      `${s.stage}: ${s.cases} cases, ${s.analyses} analyses, ${scored} candidates replayed; ${s.accepted ? `${s.accepted} accepted` : `${s.parent} stays`}`,
    );
  }
  const rows = result.heldout.map((r) => ({
    label: r.version,
    obs: r.obs,
    hist: r.hist,
    metrics: r.metrics,
  }));
  const c = result.conversations;
  lines.push(
    replayTable(
      rows,
      { ...result, source: `${result.source}, held-out`, traces: c.heldout },
      { width: terminalWidth(), wide: opts.wide },
    ),
  );
  lines.push(replayVerdict(rows));
  lines.push(
    `final: ${result.final.obs.id}, ${result.final.hist.id}` +
      (result.promoted.length > 0
        ? ` (now active: ${result.promoted.join(', ')})`
        : ' (active guidelines unchanged)'),
  );
  lines.push(`stored in ${db} as run ${result.runId}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function dbOf(opts: RawOpts): Promise<string> {
  const { loadConfig } = await import('../config/index.js');
  return opts.db ?? loadConfig({ file: opts.config }).config.run.db;
}

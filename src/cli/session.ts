import { setFlagsFromString } from 'node:v8';
import pc from 'picocolors';
import {
  openBench,
  type OpenBenchOptions,
  type Benchmark,
  requireValidTasks,
} from '../bench/index.js';
import {
  loadConfig,
  type Config,
  type ProviderName,
  applyCompressorFlags,
  type CompressorFlags,
} from '../config/index.js';
import type { RunEnv } from '../experiment/index.js';
import { UsageError } from './usage-error.js';
import { cliText } from './library-errors.js';
import { GuidelineStore } from '../guidelines/index.js';
import {
  checkServerTokenizers,
  checkTokenizers,
  configuredRoles,
  createLlmClient,
  OpenAiProvider,
  LLM_ROLES,
  roleConfig,
  type LlmProvider,
  type LlmRole,
} from '../llm/index.js';
import { createSimProvider } from '../sim/index.js';
import { openRunStore, type RunStore } from '../store/index.js';
import type { RunRow } from '../domain/index.js';
import { recordedConfig, refuseConflicts, requireKind } from './resume.js';

/** Options every run-like command shares. */
export type SessionOptions = {
  config?: string;
  provider?: ProviderName;
  /** commander's --no-cache sets cache: false */
  cache?: boolean;
  budgetUsd?: number;
  db?: string;
  bench: string;
  json?: boolean;
  /** The run being resumed: its recorded config, provider and models replace today's. */
  resume?: string;
  /** Run kinds this command can resume (`acon optimize` resumes only optimize runs). */
  resumes?: readonly string[];
  /**
   * Called with the resumed run's record before anything opens: refuses conflicting flags and
   * returns the benchmark options the run recorded (its task ids).
   */
  onResume?: (run: RunRow) => OpenBenchOptions | undefined;
  /** Only plan (--dry-run): the database is opened read-only and nothing is written. */
  dryRun?: boolean;
  /** The roles the command calls: their endpoints' keys must be set. @default every role */
  roles?: readonly LlmRole[];
  /**
   * Checks the command's own inputs (the guideline versions it names) after config, benchmark
   * and tasks validated and before the database is opened for writing.
   */
  validate?: (env: {
    config: Config;
    bench: Benchmark;
    guidelines: GuidelineStore;
    /** The database, still read-only (an empty store when the file does not exist yet). */
    store: RunStore;
    db: string;
  }) => Promise<void>;
  /** Run the valid tasks when some task files are invalid (instead of stopping). */
  skipInvalidTasks?: boolean;
  /** --allow-task-changes: a resumed run goes on when a task changed (it says which). */
  allowTaskChanges?: boolean;
  /** A compressor model and endpoint of its own (run/compare); a resumed run keeps its own. */
  compressor?: CompressorFlags;
  /**
   * Only a plan will be made (`--dry-run`): a benchmark the sim provider cannot drive is not
   * refused, and its plan is priced as a real-model run.
   */
  planOnly?: boolean;
} & OpenBenchOptions;

/** Everything a command needs, built once at the edge (the composition root). */
export type Session = RunEnv & {
  configFile: string | null;
  /** The record of the resumed run, when --resume was given. */
  recorded: RunRow | null;
  close(): Promise<void>;
};

/**
 * Lets V8 grow the heap to twice what survives a full collection instead of four times. Commands
 * that run rollouts keep ~135 MB alive for the whole run, mostly caches (pristine worlds, token
 * counts, the sim's memos), and promote data fast enough that V8 picks its largest growing factor:
 * the README optimize reached 720-745 MB of resident memory, ~460 MB with this, for about 3% more
 * CPU (issue #28). `acon export` does the same at 1.2× (issue #16).
 */
export function boundRolloutHeap(): void {
  setFlagsFromString('--heap-growing-percent=100');
}

export async function openSession(opts: SessionOptions): Promise<Session> {
  const loaded = loadConfig({ file: opts.config });
  const db = opts.db ?? loaded.config.run.db;
  // Read-only until every input has been validated: a bad config, task, guideline or QA file
  // leaves no database behind (issue #31, item 9). A missing file reads as an empty store.
  let store = openRunStore(db, { mode: 'read' });
  let bench: Benchmark | undefined;
  try {
    const { config, recorded, benchName, benchOpts } = sessionConfig(
      opts,
      store,
      loaded.config,
      db,
    );
    checkTokenizers(config);
    const providerOf = (role: LlmRole) => providerIn(config, role);
    const simNeeded = LLM_ROLES.some((r) => providerOf(r) === 'sim');
    // The judge, when configured, is called like any role: its endpoint's key is checked too.
    const callable = configuredRoles(config);
    bench = await openBench(benchName, config, benchOpts);
    const opened = bench;
    // A plan for a benchmark without reference solutions is priced as what it must be: a real run.
    const simulated = simNeeded && opened.referencePlan !== undefined;
    if (simNeeded && !simulated && !opts.planOnly) {
      throw new UsageError(
        `the sim provider needs reference solutions, which ${benchName} does not have; use --provider openai (or --bench apptown to run offline)`,
      );
    }
    await requireValidTasks(opened, opts.skipInvalidTasks === true, (line, options) =>
      process.stderr.write(`${cliText(line, options)}\n`),
    );
    const providers = sessionProviders(config, opened, simulated);
    const guidelines = new GuidelineStore();
    if (!opts.planOnly) {
      const roles = (opts.roles ?? callable).filter((r) => callable.includes(r));
      checkEndpointKeys(config, providers.openai, roles);
      // A server without /tokenize stops the command here, before its database is written; the
      // probe's client only reads the store (a count is not a recorded call).
      await checkServerTokenizers(config, createLlmClient({ config, providers, store }), roles);
    }
    await opts.validate?.({ config, bench: opened, guidelines, store, db });
    if (!opts.dryRun) {
      store.close();
      store = openRunStore(db, { mode: 'write', groupCommit: true });
    }
    const abort = new AbortController();
    const priorSpentUsd = opts.resume ? store.callStats(opts.resume).costUsd : 0;
    const llm = createLlmClient({
      priorSpentUsd,
      config,
      providers,
      store,
      noCache: opts.cache === false,
      budgetUsd: opts.budgetUsd ?? config.budget.usd,
      signal: abort.signal,
      onWarning: (line) => process.stderr.write(`${line}\n`),
    });
    const models = Object.fromEntries(
      callable.map((r) => [r, `${providerOf(r)}/${roleConfig(config, r).model}`]),
    );
    const opener = store;
    return {
      config,
      configFile: loaded.file,
      recorded,
      store: opener,
      bench: opened,
      llm,
      simulated,
      models,
      provider: providerOf('agent'),
      abort,
      guidelines,
      async close() {
        await opened.close?.();
        opener.close();
      },
    };
  } catch (err) {
    await bench?.close?.();
    store.close();
    throw err;
  }
}

/**
 * Every role sent to an HTTP endpoint has its key in the environment, checked before anything
 * is stored (the provider would say the same at the first call, after the run was created).
 */
function checkEndpointKeys(
  config: Config,
  openai: OpenAiProvider,
  roles: readonly LlmRole[],
): void {
  for (const role of roles) {
    if (providerIn(config, role) === 'openai')
      openai.checkEndpoint(roleConfig(config, role).endpoint);
  }
}

/**
 * The config a session runs with: the recorded one of a resumed run (a conflicting --provider
 * is refused), else the loaded one with the command's flags applied.
 */
function sessionConfig(opts: SessionOptions, store: RunStore, loaded: Config, db: string) {
  let config = loaded;
  let recorded: RunRow | null = null;
  let benchName = opts.bench;
  let benchOpts: OpenBenchOptions = opts;
  if (opts.resume) {
    recorded = store.getRun(opts.resume);
    requireKind(recorded, opts.resumes ?? []);
    config = recordedConfig(recorded, db);
    const wanted = opts.provider;
    if (wanted && LLM_ROLES.some((r) => providerIn(config, r) !== wanted)) {
      refuseConflicts(recorded.id, [
        { flag: '--provider', given: wanted, recorded: recordedProviders(config) },
      ]);
    }
    benchName = recorded.bench;
    benchOpts = { ...opts, ...opts.onResume?.(recorded) };
  } else {
    if (opts.provider) {
      // --provider applies to every role, overriding per-role providers too.
      config.provider = opts.provider;
      for (const role of LLM_ROLES) delete config.roles[role].provider;
    }
    config.run.db = db;
    if (opts.compressor) applyCompressorFlags(config, opts.compressor);
  }
  if (opts.allowTaskChanges) config.run.allow_task_changes = true;
  return { config, recorded, benchName, benchOpts };
}

/** The LLM providers of a session: openai always, the sim when a role uses it (says SIMULATED). */
function sessionProviders(
  config: Config,
  bench: Benchmark,
  simulated: boolean,
): Partial<Record<ProviderName, LlmProvider>> & { openai: OpenAiProvider } {
  const providers: Partial<Record<ProviderName, LlmProvider>> & { openai: OpenAiProvider } = {
    openai: new OpenAiProvider({ endpoints: config.endpoints }),
  };
  if (simulated) {
    providers.sim = createSimProvider({
      seed: config.sim.seed,
      refetchLimit: config.sim.refetch_limit,
      noise: config.sim.noise,
      planFor: (taskId) => bench.referencePlan!(taskId),
    });
    process.stderr.write(
      `${pc.yellow('SIMULATED')}: provider sim (a deterministic offline LLM); results are not from a real model. Use --provider openai for real results.\n`,
    );
  }
  return providers;
}

function providerIn(config: Config, role: LlmRole): ProviderName {
  return roleConfig(config, role).provider ?? config.provider;
}

/** `openai`, or `agent=openai,analyzer=sim,…` when the roles differ. */
function recordedProviders(config: Config): string {
  const all = LLM_ROLES.map((r) => providerIn(config, r));
  if (all.every((p) => p === all[0])) return all[0]!;
  return LLM_ROLES.map((r, i) => `${r}=${all[i]}`).join(',');
}

/**
 * Every command that runs something: open the session, let Ctrl-C stop `body` cleanly, and close
 * the session however `body` ends.
 */
export async function withSession<T>(
  opts: SessionOptions,
  body: (session: Session) => Promise<T>,
): Promise<T> {
  const session = await openSession(opts);
  const release = onInterrupt(session.abort);
  try {
    return await body(session);
  } finally {
    release();
    await session.close();
  }
}

/** The command line as typed, which a run records (and `--resume` shows). */
export function typedCommand(): string {
  return `acon ${process.argv.slice(2).join(' ')}`;
}

/** Ctrl-C stops the run cleanly once; a second Ctrl-C exits at once. */
export function onInterrupt(abort: AbortController): () => void {
  const handler = () => {
    if (abort.signal.aborted) process.exit(130);
    process.stderr.write('\ninterrupting: finished rollouts are stored; resume with --resume\n');
    abort.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

import type { LoadedTraces } from '../experiment/index.js';
import type { RunStore } from '../store/index.js';
import type { Session, SessionOptions } from './session.js';

/**
 * Reading `--traces` for `acon replay` and `acon optimize --traces`: a file before anything
 * opens (a bad line leaves no database behind), a run from the database it is stored in.
 */

/** The traces of a file source, read and checked before the session opens; null for a run. */
export async function fileTraces(params: {
  traces: string;
  skipInvalid: boolean;
}): Promise<LoadedTraces | null> {
  const { loadTraces, parseTraceSource } = await import('../experiment/index.js');
  const source = parseTraceSource(params.traces);
  if (source.kind !== 'file') return null;
  return loadTraces(source, { skipInvalid: params.skipInvalid });
}

/** The traces of a run source, from the session's store. */
export async function runSourceTraces(
  store: RunStore,
  params: { traces: string; skipInvalid: boolean },
): Promise<LoadedTraces> {
  const { loadTraces, parseTraceSource } = await import('../experiment/index.js');
  return loadTraces(parseTraceSource(params.traces), { store, skipInvalid: params.skipInvalid });
}

/** A stored run's record, read without opening the database for writing. */
export async function recordedRun(db: string, id: string) {
  const { openRunStore } = await import('../store/index.js');
  const store = openRunStore(db, { mode: 'read' });
  try {
    return store.getRun(id);
  } finally {
    store.close();
  }
}

/** The benchmark of a run source when it is one acon knows (a proxy run's is not), else apptown. */
export async function sourceBench(db: string, traces: string): Promise<string> {
  const { parseTraceSource } = await import('../experiment/index.js');
  const { BENCH_NAMES } = await import('../bench/index.js');
  const source = parseTraceSource(traces);
  if (source.kind !== 'run') return 'apptown';
  const run = await recordedRun(db, source.runId);
  return (BENCH_NAMES as readonly string[]).includes(run.bench) ? run.bench : 'apptown';
}

/** A warning line on stderr for lines refused and skipped with --skip-invalid. */
export function warnSkipped(loaded: LoadedTraces): void {
  if (loaded.skipped.length === 0) return;
  process.stderr.write(
    `warning: ${loaded.skipped.length} lines refused and skipped (--skip-invalid); first: ${loaded.skipped[0]!.message}\n`,
  );
}

/** The flags every command over recorded conversations reads to open its session. */
export type TraceCommandFlags = {
  config?: string;
  provider?: 'sim' | 'openai';
  cache?: boolean;
  budgetUsd?: string;
  resume?: string;
  db?: string;
  json?: boolean;
};

/** How the command's run is recorded and where its progress lines go (none with --json). */
export type TraceRecording = {
  resume: string | undefined;
  command: string;
  log: (line: string) => void;
};

/**
 * `acon replay` and `acon optimize --traces`: open the session over `bench` (a file source was
 * read before, `early`; a run source is read from the session's store), warn about skipped lines,
 * and run `body` on the conversations.
 */
export async function withTraces<T>(
  flags: TraceCommandFlags,
  spec: {
    params: { traces: string; skipInvalid: boolean };
    early: LoadedTraces | null;
    bench: string;
    resumes: readonly string[];
    roles?: SessionOptions['roles'];
    validate: SessionOptions['validate'];
  },
  body: (session: Session, loaded: LoadedTraces, recording: TraceRecording) => Promise<T>,
): Promise<T> {
  const { withSession, typedCommand } = await import('./session.js');
  const { positiveNumber } = await import('./numbers.js');
  const options: SessionOptions = {
    config: flags.config,
    provider: flags.provider,
    cache: flags.cache,
    resume: flags.resume,
    resumes: spec.resumes,
    budgetUsd: positiveNumber(flags.budgetUsd, '--budget-usd'),
    db: flags.db,
    bench: spec.bench,
    roles: spec.roles,
    validate: spec.validate,
  };
  return withSession(options, async (session) => {
    const loaded = spec.early ?? (await runSourceTraces(session.store, spec.params));
    warnSkipped(loaded);
    return body(session, loaded, {
      resume: flags.resume,
      command: typedCommand(),
      log: (line) => {
        if (!flags.json) process.stderr.write(`${line}\n`);
      },
    });
  });
}

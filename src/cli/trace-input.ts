import type { LoadedTraces } from '../experiment/index.js';
import type { RunStore } from '../store/index.js';

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

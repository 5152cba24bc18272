import { existsSync } from 'node:fs';
import type { ChatMessage, Trace } from '../../domain/index.js';
import { NotFoundError } from '../../errors.js';
import type { RunStore } from '../../store/index.js';
import { readTraceFile, TraceFileError } from './trace-file.js';

/**
 * Where `--traces` reads conversations from: a stored run (`run-…`, optionally `run-…:CONDITION`;
 * a `proxy --record` run or any run's rollouts under one condition) or a JSONL file.
 */
export type TraceSource =
  { kind: 'run'; runId: string; condition?: string } | { kind: 'file'; path: string };

export function parseTraceSource(text: string): TraceSource {
  const run = /^((?:run|proxy)-[\w-]+)(?::(.+))?$/.exec(text);
  if (run && !existsSync(text)) {
    return run[2] === undefined
      ? { kind: 'run', runId: run[1]! }
      : { kind: 'run', runId: run[1]!, condition: run[2] };
  }
  return { kind: 'file', path: text };
}

/** Problems of a file, when some lines were refused and `--skip-invalid` was not given. */
export class TraceProblemsError extends TraceFileError {
  override name = 'TraceProblemsError';
  constructor(readonly problems: TraceFileError[]) {
    const first = problems[0]!;
    const more =
      problems.length > 1 ? ` (and ${problems.length - 1} more lines with problems)` : '';
    super(first.file.replace(/:\d+$/, ''), first.line, first.field, `${first.detail}${more}`);
  }
}

export type LoadedTraces = { traces: Trace[]; skipped: TraceFileError[]; label: string };

/** Conversations of a stored run: each rollout's full trajectory, its tools from its first agent call. */
export function runTraces(store: RunStore, runId: string, condition?: string): Trace[] {
  store.getRun(runId);
  const conditions = store.runConditions(runId);
  const chosen =
    condition ??
    (conditions.includes('raw') ? 'raw' : conditions.length === 1 ? conditions[0] : undefined);
  if (chosen === undefined || !conditions.includes(chosen)) {
    throw new NotFoundError(
      `run ${runId} has ${condition === undefined ? 'no raw condition and several others' : `no condition "${condition}"`}; name one as ${runId}:CONDITION (conditions: ${conditions.join(', ') || 'none'})`,
    );
  }
  return store.rollouts(runId, chosen).map((r) => {
    const t = store.trajectory(r.id);
    const messages: ChatMessage[] = [
      { role: 'system', content: t.system },
      { role: 'user', content: t.task },
      ...t.turns.flatMap((turn) => [turn.assistant, ...turn.observations]),
    ];
    const agent = store.calls({ rolloutId: r.id, role: 'agent' })[0];
    const tools = agent
      ? ((JSON.parse(agent.request) as { tools?: Record<string, unknown>[] }).tools ?? [])
      : [];
    return {
      id: r.task_id,
      messages,
      tools,
      // Proxied traffic is never evaluated (its "success" only says the agent ended with an
      // answer): its outcome is unknown, not a failure that would leave it out.
      outcome: r.split === 'proxy' ? 'unknown' : r.success ? 'success' : 'failure',
      taskId: r.task_id,
      source: `${runId}/${chosen}/${r.task_id}`,
    };
  });
}

export async function loadTraces(
  source: TraceSource,
  opts: { store?: RunStore; skipInvalid: boolean },
): Promise<LoadedTraces> {
  if (source.kind === 'run') {
    if (!opts.store) throw new NotFoundError(`traces ${source.runId}: no run store is open`);
    return {
      traces: runTraces(opts.store, source.runId, source.condition),
      skipped: [],
      label: source.runId,
    };
  }
  if (!existsSync(source.path)) {
    throw new NotFoundError(
      `traces file ${source.path} does not exist; give a JSONL file of conversations or a run id (run-…)`,
    );
  }
  const { traces, problems } = await readTraceFile(source.path);
  if (problems.length > 0 && (!opts.skipInvalid || traces.length === 0))
    throw new TraceProblemsError(problems);
  return { traces, skipped: problems, label: source.path };
}

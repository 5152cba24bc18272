import { randomBytes } from 'node:crypto';
import PQueue from 'p-queue';
import { createStrategy, runEpisode, type EpisodeResult } from '../agent/index.js';
import type { Benchmark, TaskInfo } from '../bench/index.js';
import type { Config } from '../config/index.js';
import { InterruptedError, RolloutLimitError, type Warn } from '../errors.js';
import {
  roleTokenCounter,
  tokenCounterFor,
  type TokenCounter,
  type ChatMessage,
  type LlmClient,
  type ToolDef,
} from '../llm/index.js';
import { rolloutMetrics } from '../metrics/index.js';
import { rolloutKey, type RunStore } from '../store/index.js';
import { isolatedContext, type Condition } from './condition.js';
import { InfraFailureLog } from '../store/index.js';
import { isInfrastructureFailure } from './infra-failures.js';
import { checkTaskDigests } from './task-digests.js';

export type RolloutJob = { condition: Condition; task: TaskInfo };

export type RolloutOutcome = {
  job: RolloutJob;
  success: boolean;
  peakInputTokens: number;
  steps: number;
};

export type RunRolloutsOptions = {
  runId: string;
  bench: Benchmark;
  jobs: RolloutJob[];
  llm: LlmClient;
  store: RunStore;
  config: Config;
  /** Rollouts in flight at once. @default config.run.concurrency */
  concurrency?: number;
  /** Ctrl-C: stop scheduling, abandon rollouts in flight (they are re-run on --resume). */
  signal?: AbortSignal;
  /**
   * Asked just before a job starts; false skips it (candidate evaluation drops a candidate that
   * can no longer win). Skipped jobs count as done for progress.
   */
  shouldRun?: (job: RolloutJob) => boolean;
  /** Where a warning line goes (a task changed under --allow-task-changes). @default stderr */
  warn?: Warn;
  /** Called after each stored (or skipped, already stored) rollout. */
  onRollout?: (outcome: RolloutOutcome | null, done: number, total: number) => void;
  /**
   * The most rollouts the run may store (optimize --max-rollouts), those of earlier calls and
   * attempts included; a job that would pass it stops the run with RolloutLimitError. Rollouts
   * already stored are skipped, not counted again. @default no limit
   */
  maxRollouts?: number | null;
  /** What thresholds and peaks are counted with. @default the agent's tokenizer (roleTokenCounter) */
  tokens?: TokenCounter;
};

/** The options with the run's token counter resolved. */
type Resolved = RunRolloutsOptions & { tokens: TokenCounter };

/**
 * Runs every job not already stored for this run, concurrently through p-queue, and commits
 * each rollout (steps, events, metrics) once it finishes. Finished rollouts of an earlier,
 * interrupted attempt are skipped: that is how --resume avoids redoing work.
 *
 * A rollout's slot is freed when its episode ends, before it is committed: the commit waits in
 * a Committer until the rollouts that start meanwhile have sent their first request.
 */
export async function runRollouts(given: RunRolloutsOptions): Promise<void> {
  const opts: Resolved = {
    ...given,
    tokens: given.tokens ?? roleTokenCounter(given.config, 'agent', given.llm),
  };
  const { store, runId } = opts;
  await checkTaskDigests({
    store,
    runId,
    bench: opts.bench,
    // A repeat is its task run again: the task's digest is what can change.
    tasks: opts.jobs.map((j) => repeatedTask(j.task)),
    allow: opts.config.run.allow_task_changes,
    warn: opts.warn ?? ((line) => process.stderr.write(`warning: ${line}\n`)),
  });
  const finished = store.finishedKeys(runId);
  const todo = opts.jobs.filter((j) => !finished.has(rolloutKey(j.condition.label, j.task.id)));
  const infra = new InfraFailureLog(
    store,
    runId,
    new Set(todo.map((j) => rolloutKey(j.condition.label, j.task.id))),
  );
  const total = opts.jobs.length;
  let done = total - todo.length;
  opts.onRollout?.(null, done, total);
  const concurrency = opts.concurrency ?? opts.config.run.concurrency;
  const queue = new PQueue({ concurrency });
  let stop: unknown = null;
  const warmer = new Warmer(opts.bench, todo, Math.min(concurrency, WARM_AHEAD), () => {
    return stop !== null || opts.signal?.aborted === true;
  });
  const committer = new Committer((err) => (stop ??= err));
  // Stored before this call plus those started in it, less those that ended unstored (an
  // infrastructure failure, Ctrl-C): what the run has stored once the rollouts in flight end.
  const limit = new RolloutCount(finished.size, opts.maxRollouts ?? null);
  // Jobs not started yet return at once after a stop; p-queue's clear() would leave their
  // promises pending forever.
  for (const job of todo) {
    void queue.add(async () => {
      warmer.started();
      if (stop !== null || opts.signal?.aborted) return;
      if (opts.shouldRun && !opts.shouldRun(job)) {
        done += 1;
        opts.onRollout?.(null, done, total);
        return;
      }
      if (!limit.take()) {
        stop ??= new RolloutLimitError(limit.used, limit.max!);
        return;
      }
      // 64 random bits as 16 hex digits: unique in any store (a clash would fail the insert, not
      // mix rows), and every step, compression event and call context repeats it (issue #16).
      const rolloutId = randomBytes(8).toString('hex');
      try {
        const ended = await runOne(job, rolloutId, opts).catch((err: unknown) => {
          limit.release();
          throw err;
        });
        if (opts.signal?.aborted) return limit.release();
        committer.add(() => {
          const outcome = commitRollout(ended, opts);
          done += 1;
          opts.onRollout?.(outcome, done, total);
        });
      } catch (err) {
        if (isInfrastructureFailure(err) && !opts.signal?.aborted && stop === null) {
          // A call that failed every attempt ends only its rollout: listed, not counted, and
          // run again by --resume (issue #31, item 10).
          const { label } = job.condition;
          infra.add({ condition: label, taskId: job.task.id, rolloutId, error: err.message });
          done += 1;
          opts.onRollout?.(null, done, total);
          return;
        }
        // Budget, interruption and configuration-like provider failures (401, 404) stop the
        // whole run; finished rollouts stay stored.
        stop ??= err;
      }
    });
  }
  const warming = warmer.run();
  await queue.onIdle();
  await warmer.finish(warming);
  // Rollouts that ended before a stop or Ctrl-C are complete: they are stored all the same.
  await committer.drain();
  if (opts.signal?.aborted) throw new InterruptedError('interrupted');
  if (stop instanceof RolloutLimitError) throw new RolloutLimitError(limit.used, limit.max!);
  if (stop !== null) throw stop;
}

/** The run's rollouts against `maxRollouts`: stored before the call, plus started, less lost. */
class RolloutCount {
  constructor(
    public used: number,
    readonly max: number | null,
  ) {}

  /** Counts one more rollout, or false when it would pass the limit. */
  take(): boolean {
    if (this.max !== null && this.used >= this.max) return false;
    this.used++;
    return true;
  }

  /** A rollout that ended unstored: it did not run as far as the store is concerned. */
  release(): void {
    this.used--;
  }
}

/**
 * Commits finished rollouts one per turn of the event loop, after the callbacks already due.
 * Rollouts of equal length end together; committing each (its metrics and a SQLite
 * transaction, a few ms) before the next rollout could start held every new rollout's first
 * request, and every answer arriving meanwhile, behind all of them: at 64 in flight the model
 * sat idle for a few hundred milliseconds at every wave (issue #16, bench:throughput).
 */
class Committer {
  private readonly pending: (() => void)[] = [];
  private scheduled = false;
  private idle: (() => void) | undefined;

  constructor(private readonly failed: (err: unknown) => void) {}

  add(commit: () => void): void {
    this.pending.push(commit);
    this.schedule();
  }

  /** Resolves once every commit added so far has run. */
  drain(): Promise<void> {
    if (this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => (this.idle = resolve));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const commit = this.pending.shift();
      try {
        commit?.();
      } catch (err) {
        this.failed(err);
      }
      if (this.pending.length > 0) this.schedule();
      else this.idle?.();
    });
  }
}

/** Tasks prepared ahead of the rollouts running (at most; fewer when fewer run at once). */
const WARM_AHEAD = 64;

/**
 * Prepares the tasks of the jobs about to start (Benchmark.prepare: apptown generates the
 * world and replays the reference), one at a time with pauses between, while the rollouts in
 * flight wait on the model. Rollouts of equal length finish together; without this, each slot
 * freed in that moment set up its next task in one burst that stalled every other call on the
 * event loop (issue #16, bench:throughput). Stays at most `ahead` jobs beyond the last started
 * one, so what it prepares is still cached when its rollout starts.
 */
class Warmer {
  private startedJobs = 0;
  private done = false;
  private wake: (() => void) | undefined;
  /** How long the last preparation took (ms); the pause after it is three times that. */
  private lastMs = 0;

  constructor(
    private readonly bench: Benchmark,
    private readonly jobs: readonly RolloutJob[],
    private readonly ahead: number,
    private readonly halted: () => boolean,
  ) {}

  /** A job began (it prepares its own task if the warmer did not). */
  started(): void {
    this.startedJobs++;
    this.wake?.();
  }

  async run(): Promise<void> {
    const prepare = this.bench.prepare?.bind(this.bench);
    if (!prepare) return;
    for (let next = 0; ; next++) {
      // A pause three times as long as the last preparation: the warmer takes at most a
      // quarter of the event loop, and answers that arrive meanwhile go first.
      await new Promise((resolve) => setTimeout(resolve, 3 * this.lastMs));
      // Jobs that started meanwhile prepared their own tasks; stay within `ahead` of them.
      while (!this.stopped() && Math.max(next, this.startedJobs) >= this.startedJobs + this.ahead) {
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
      next = Math.max(next, this.startedJobs);
      if (this.stopped() || next >= this.jobs.length) return;
      const t0 = performance.now();
      // A task that fails to prepare fails again when its rollout starts, which reports it.
      await prepare(repeatedTask(this.jobs[next]!.task).id).catch(() => undefined);
      this.lastMs = performance.now() - t0;
    }
  }

  async finish(running: Promise<void>): Promise<void> {
    this.done = true;
    this.wake?.();
    await running;
  }

  private stopped(): boolean {
    return this.done || this.halted();
  }
}

/** A rollout whose episode is over (evaluated and closed), ready to be committed. */
type EndedRollout = {
  job: RolloutJob;
  rolloutId: string;
  episodeMeta: Record<string, unknown> | null;
  tools: ToolDef[];
  result: EpisodeResult;
  startedAt: Date;
  finishedAt: Date;
};

async function runOne(job: RolloutJob, rolloutId: string, opts: Resolved): Promise<EndedRollout> {
  const { config, runId } = opts;
  // A repeat runs its task's episode under its own sampling seed (TaskInfo.repeat).
  const { repeat } = job.task;
  const taskId = repeatedTask(job.task).id;
  const callCtx = { runId, rolloutId, taskId, ...(repeat ? { seed: repeat.index } : {}) };
  const startedAt = new Date();
  const episode = await opts.bench.start(taskId, {
    runId,
    condition: job.condition.label,
  });
  try {
    const context = isolatedContext(config.context, job.condition.only);
    const strategy = createStrategy(
      job.condition.strategy,
      { ...context, guidelines: job.condition.guidelines },
      {
        llm: opts.llm,
        callCtx,
        maxOutputRetries: config.agent.max_output_retries,
        tokens: opts.tokens,
      },
    );
    const result = await runEpisode({
      episode,
      strategy,
      llm: opts.llm,
      callCtx,
      maxSteps: config.agent.max_steps,
      maxOutputRetries: config.agent.max_output_retries,
      signal: opts.signal,
      tokens: opts.tokens,
    });
    if (opts.signal?.aborted) throw new InterruptedError('interrupted');
    const finishedAt = new Date();
    const episodeMeta = episode.meta?.() ?? null;
    return { job, rolloutId, episodeMeta, tools: episode.tools, result, startedAt, finishedAt };
  } finally {
    await episode.close();
  }
}

/** Stores a finished rollout (steps, events, metrics) in one transaction. */
function commitRollout(ended: EndedRollout, opts: Resolved): RolloutOutcome {
  const { config, store, runId } = opts;
  const { job, rolloutId, result, startedAt, finishedAt } = ended;
  const { only } = job.condition;
  const metrics = rolloutMetrics({
    success: result.evaluation.success,
    score: result.evaluation.score,
    stepPromptTokens: result.steps.map((s) => s.promptTokens),
    systemTokens: systemTokens(result.trajectory.system, ended.tools, opts.tokens),
    events: result.events,
    calls: store.callsOfRollout(rolloutId),
    wallMs: finishedAt.getTime() - startedAt.getTime(),
    prices: config.prices,
    sharedPrefixTokens: sharedPrefixTokens(result.steps, ended.tools, opts.tokens),
    qa: result.evaluation.qa,
  });
  store.saveRollout({
    id: rolloutId,
    runId,
    condition: job.condition.label,
    taskId: job.task.id,
    split: job.task.split,
    strategy: job.condition.strategy,
    guidelineObs: only === 'hist' ? null : (job.condition.guidelines?.obs.id ?? null),
    guidelineHist: only === 'obs' ? null : (job.condition.guidelines?.hist.id ?? null),
    status: result.stopReason,
    evaluation: result.evaluation,
    metrics,
    trajectory: result.trajectory,
    steps: result.steps,
    events: result.events,
    error: result.error ?? null,
    episodeMeta: ended.episodeMeta,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
  });
  return {
    job,
    success: metrics.success,
    peakInputTokens: metrics.peakInputTokens,
    steps: metrics.steps,
  };
}

/**
 * Tokens the system prompt and the tool definitions add to every agent prompt: what the paper's
 * peak and dependency (v3, Eq. 12) leave out.
 */
export function systemTokens(
  system: string,
  tools: ToolDef[],
  tokens: TokenCounter = tokenCounterFor('o200k'),
): number {
  const { countMessageTokens } = tokens;
  return countMessageTokens([{ role: 'system', content: system }], tools) - countMessageTokens([]);
}

/**
 * Per agent call: the tokens of its prompt identical to the previous step's prompt (the leading
 * messages that did not change, with the tool definitions), what a provider's prefix cache
 * could serve. A history compression rewrites the prefix, so the next step shares little.
 */
export function sharedPrefixTokens(
  steps: readonly { prompt: ChatMessage[]; callId: number }[],
  tools: ToolDef[],
  tokens: TokenCounter = tokenCounterFor('o200k'),
): Map<number, number> {
  const { countMessageTokens } = tokens;
  const out = new Map<number, number>();
  for (let i = 1; i < steps.length; i++) {
    const prev = steps[i - 1]!.prompt;
    const cur = steps[i]!.prompt;
    let n = 0;
    while (n < prev.length && n < cur.length && sameMessage(prev[n]!, cur[n]!)) n++;
    out.set(steps[i]!.callId, n === 0 ? 0 : countMessageTokens(cur.slice(0, n), tools));
  }
  return out;
}

/**
 * Strategies hand on the trajectory's own message objects where a message did not change, so
 * identity settles almost every comparison; serializing both (quadratic in the steps) is the
 * fallback for rebuilt copies.
 */
function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** The task a job's episode runs: the task itself, or the one a repeat repeats. */
function repeatedTask(task: TaskInfo): TaskInfo {
  if (!task.repeat) return task;
  const { repeat: _repeat, ...rest } = task;
  return { ...rest, id: task.repeat.of };
}

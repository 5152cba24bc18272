import type { Benchmark, EpisodeContext, TaskInfo } from '../types.js';
import { AppWorldClient } from './client.js';
import type { AppWorldClientOptions } from './client-options.js';
import { AppWorldEpisode } from './episode.js';
import { AppWorldBusyError, AppWorldUnreachableError } from './errors.js';
import { experimentName } from './experiment-name.js';
import { ServerPool } from './server-pool.js';
import { TaskIdSource } from './task-ids.js';

export type AppWorldOptions = {
  /**
   * Environment server URLs; each runs one world at a time, so N URLs run N tasks in parallel.
   * @default config `appworld.urls`, i.e. ['http://127.0.0.1:8000']
   */
  urls: readonly string[];
  /**
   * Start of every experiment name (AppWorld saves a task's outputs under
   * `experiments/outputs/<experiment name>/`); each (run, condition) gets its own name.
   * @default config `appworld.experiment_prefix`, i.e. 'acon'
   */
  experimentPrefix: string;
  /** Tasks named with --tasks; they replace the split lists. */
  taskIds?: readonly string[];
  /** A task-id file (one id per line); added to `taskIds`. */
  taskFile?: string;
  /**
   * The AppWorld install whose `data/datasets/<split>.txt` list the tasks of each split.
   * @default process.env.APPWORLD_ROOT
   */
  appworldRoot?: string;
  /** Timeouts, `/initialize` extras and an injected fetch, for every server's client. */
  client?: Omit<AppWorldClientOptions, 'url'>;
};

type Known = { instruction: string; difficulty: number };

/**
 * A real AppWorld install driven through its environment servers (ARCHITECTURE §5). Task ids
 * come from the user (TaskIdSource); a task's instruction is only known once a world of it has
 * been initialized, and its difficulty once it has been evaluated.
 */
export class AppWorldBenchmark implements Benchmark {
  readonly name = 'appworld';
  readonly clients: readonly AppWorldClient[];
  private readonly pool: ServerPool<AppWorldClient>;
  private readonly tasks: TaskIdSource;
  private readonly known = new Map<string, Known>();
  private readonly used = new Set<AppWorldClient>();
  private readonly experimentPrefix: string;

  constructor(opts: AppWorldOptions) {
    const urls = [...new Set(opts.urls.map((u) => u.replace(/\/+$/, '')))];
    this.experimentPrefix = opts.experimentPrefix;
    this.clients = urls.map((url) => new AppWorldClient({ ...opts.client, url }));
    this.pool = new ServerPool(
      this.clients,
      () => new AppWorldBusyError(urls.join(', '), '/initialize'),
    );
    this.tasks = new TaskIdSource({
      taskIds: opts.taskIds,
      taskFile: opts.taskFile,
      appworldRoot: opts.appworldRoot ?? process.env.APPWORLD_ROOT,
    });
  }

  /**
   * Checks that every server accepts connections (about a second at most, no retries). Commands
   * that run tasks call it first so a missing server fails before any LLM call; `start` checks
   * its server anyway.
   */
  async connect(): Promise<void> {
    const results = await Promise.allSettled(this.clients.map((c) => c.connect()));
    const failed = results.flatMap((r, i) =>
      r.status === 'rejected'
        ? [{ url: this.clients[i]?.url ?? '', err: r.reason as unknown }]
        : [],
    );
    const first = failed[0];
    if (!first) return;
    if (failed.length === 1) throw first.err;
    const reasons = failed.map((f) =>
      f.err instanceof AppWorldUnreachableError ? `${f.url}: ${f.err.reason}` : f.url,
    );
    throw new AppWorldUnreachableError(failed.map((f) => f.url).join(', '), reasons.join('; '), {
      cause: first.err,
    });
  }

  async listTasks(split?: string): Promise<TaskInfo[]> {
    const refs = await this.tasks.list(split);
    return refs.map((ref) => this.info(ref.id, ref.split));
  }

  async getTask(id: string): Promise<TaskInfo> {
    return this.info(id, await this.tasks.splitOf(id));
  }

  /**
   * The tasks with their instructions from `GET /tasks/{id}`, which needs no world, asked of
   * every server at once (each answers one request at a time). Without a reachable server, or
   * for a task a server cannot load, the task comes back as it was.
   */
  async describeTasks(tasks: TaskInfo[]): Promise<TaskInfo[]> {
    const live = (
      await Promise.all(
        this.clients.map((c) =>
          c.connect().then(
            () => c,
            () => null,
          ),
        ),
      )
    ).filter((c): c is AppWorldClient => c !== null);
    if (live.length === 0) return tasks;
    const queue = [...tasks.keys()];
    const out = [...tasks];
    await Promise.all(
      live.map(async (client) => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          const task = out[i]!;
          const shown = await client.showTask(task.id).catch(() => null);
          if (shown === null) continue;
          this.remember(task.id, { instruction: shown.instruction });
          out[i] = this.info(task.id, task.split);
        }
      }),
    );
    return out;
  }

  /** The experiment name of a (run, condition); without a context, the prefix alone. */
  experimentName(context?: EpisodeContext): string {
    return context
      ? experimentName(this.experimentPrefix, context.runId, context.condition)
      : this.experimentPrefix;
  }

  /**
   * Waits for a free server, initializes the task's world there (under the experiment name of
   * the run and condition) and returns the episode.
   */
  async start(taskId: string, context?: EpisodeContext): Promise<AppWorldEpisode> {
    const split = await this.tasks.splitOf(taskId);
    const experiment = this.experimentName(context);
    const client = await this.pool.acquire();
    try {
      this.used.add(client);
      const init = await client.initialize(taskId, experiment);
      this.remember(taskId, { instruction: init.instruction });
      let released = false;
      return new AppWorldEpisode(this.info(taskId, split), client, init, experiment, {
        onEvaluated: (out) => {
          if (out.difficulty != null) this.remember(taskId, { difficulty: out.difficulty });
        },
        onClosed: () => {
          if (released) return;
          released = true;
          this.giveBack(client);
        },
      });
    } catch (err) {
      this.pool.release(client);
      throw err;
    }
  }

  /**
   * Closes every world on the servers this benchmark used. Best effort: it runs in cleanup
   * paths, where a dead server must not hide the error that got us there.
   */
  async close(): Promise<void> {
    for (const c of this.clients) c.shutdown();
    await Promise.allSettled([...this.used].map((c) => c.closeAll()));
    this.used.clear();
  }

  /**
   * Returns a server to the pool once it can take work: a server still running code whose
   * `/execute` timed out waits until it answers again, and leaves the pool if it never does
   * (the other servers run the remaining tasks).
   */
  private giveBack(client: AppWorldClient): void {
    if (!client.busy) {
      this.pool.release(client);
      return;
    }
    void client.whenResponsive().then((ok) => {
      if (ok) this.pool.release(client);
      else this.pool.retire(client);
    });
  }

  private info(id: string, split: string): TaskInfo {
    const known = this.known.get(id);
    return {
      id,
      split,
      instruction: known?.instruction ?? '',
      apps: [],
      difficulty: known?.difficulty ?? 1,
      referenceLength: 0,
    };
  }

  private remember(id: string, update: Partial<Known>): void {
    const current = this.known.get(id) ?? { instruction: '', difficulty: 1 };
    const difficulty = update.difficulty ?? current.difficulty;
    this.known.set(id, {
      instruction: update.instruction ?? current.instruction,
      // TaskInfo allows 1..3, AppWorld's range.
      difficulty: Math.min(3, Math.max(1, Math.round(difficulty))),
    });
  }
}

/**
 * The AppWorld benchmark. Creating it touches no server; `connect()` (or the first `start`)
 * fails within about a second when a server is missing.
 *
 * @example
 * const bench = createAppWorld({ urls: config.appworld.urls,
 *   experimentPrefix: config.appworld.experiment_prefix, taskIds: ['82e2fac_1'] });
 * await bench.connect();
 */
export function createAppWorld(opts: AppWorldOptions): AppWorldBenchmark {
  return new AppWorldBenchmark(opts);
}

import { z } from 'zod';
import { systemClock, type Clock } from '../../clock.js';
import {
  AppWorldBusyError,
  AppWorldInitializeError,
  AppWorldServerError,
  AppWorldTimeoutError,
  AppWorldUnreachableError,
} from './errors.js';
import {
  ErrorBodySchema,
  EvaluateOutputSchema,
  ExecuteOutputSchema,
  InitializeOutputSchema,
  TaskCompletedOutputSchema,
  EnvelopeSchema,
  type EvaluateOutput,
  type InitializeOutput,
} from './protocol.js';
import {
  executeTimeoutFor,
  type AppWorldClientOptions,
  type ExecuteResult,
} from './client-options.js';
import { probeTcp } from './probe-tcp.js';

/**
 * What AppWorld answers when the server holds no world or another task's world
 * ("AppWorld has not been initialized.", "The active task world is X. But you have requested
 * to operate on Y"): the server restarted or someone else initialized a task on it.
 */
const LOST_WORLD =
  /not (been )?initiali[sz]ed|active task world is|requested to operate on|task mismatch/i;
const TIMED_OUT = /timed? ?out|timeout/i;
/** How AppWorld reports its own per-execution time limit, as a normal `/execute` output. */
const SERVER_TIMED_OUT = /^Execution failed\.[\s\S]*timed out after \d+(\.\d+)? seconds/i;

/**
 * A client for one AppWorld environment server (`appworld serve environment`). It holds no
 * task state of its own beyond what is needed to re-initialize a lost world once; one server
 * runs one world at a time, so callers must not drive two tasks on one client at once
 * (see ServerPool).
 */
export class AppWorldClient {
  readonly url: string;
  private readonly initializeOptions: Record<string, unknown>;
  private readonly connectTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  readonly executeTimeoutMs: number;
  private readonly busyWaitMs: number;
  private readonly probeIntervalMs: number;
  private readonly closeTimeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly timers: Pick<Clock, 'timeout' | 'sleep'>;
  private reachable: Promise<void> | undefined;
  /** While the server runs code we gave up on: resolves true once it answers, false if never. */
  private recovery: Promise<boolean> | null = null;
  private stuck = false;
  private readonly stopProbing = new AbortController();
  /** The world last initialized here, to initialize it again under the same experiment name. */
  private world: { taskId: string; experimentName: string } | undefined;

  constructor(opts: AppWorldClientOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.initializeOptions = opts.initializeOptions ?? {};
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 1000;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 120_000;
    this.executeTimeoutMs =
      opts.executeTimeoutMs ?? executeTimeoutFor(this.initializeOptions.timeout_seconds);
    this.busyWaitMs = opts.busyWaitMs ?? this.executeTimeoutMs;
    this.probeIntervalMs = opts.probeIntervalMs ?? 5_000;
    this.closeTimeoutMs = opts.closeTimeoutMs ?? 30_000;
    this.fetchImpl = opts.fetch ?? globalThis.fetch;
    this.timers = opts.timers ?? systemClock;
  }

  /** True while the server still runs code whose `/execute` we stopped waiting for. */
  get busy(): boolean {
    return this.recovery !== null;
  }

  /** True once a busy server did not answer within `busyWaitMs`: it gets no more work. */
  get isStuck(): boolean {
    return this.stuck;
  }

  /**
   * Resolves true once the server answers again (at once when it is not busy), false when it
   * stayed busy for `busyWaitMs` (or the client was shut down meanwhile).
   */
  whenResponsive(): Promise<boolean> {
    return this.recovery ?? Promise.resolve(!this.stuck);
  }

  /** Stops waiting for a busy server (cleanup); `whenResponsive` then resolves false. */
  shutdown(): void {
    this.stopProbing.abort();
  }

  /**
   * Checks once that something accepts TCP connections at the URL, with a short connect
   * timeout and no retries, so a missing server fails in about a second instead of after a
   * request timeout. A TCP probe, not an HTTP request: a real server busy executing code does
   * not answer HTTP until it is done, yet it is there. Every route calls this first.
   */
  connect(): Promise<void> {
    this.reachable ??= probeTcp(this.url, this.connectTimeoutMs).catch((err: unknown) => {
      this.reachable = undefined;
      throw err;
    });
    return this.reachable;
  }

  /**
   * Loads a fresh world of the task. AppWorld deletes
   * `experiments/outputs/<experimentName>/tasks/<taskId>/` first, and closes any other world
   * the server process held.
   */
  async initialize(taskId: string, experimentName: string): Promise<InitializeOutput> {
    this.world = { taskId, experimentName };
    try {
      return await this.post(
        '/initialize',
        { ...this.initializeOptions, task_id: taskId, experiment_name: experimentName },
        InitializeOutputSchema,
      );
    } catch (err) {
      // AppWorld answers a task it cannot load (unknown id, or no data/ where the server runs)
      // with a bare "Internal Server Error".
      if (err instanceof AppWorldServerError && err.status === 500) {
        throw new AppWorldInitializeError(this.url, taskId, { cause: err });
      }
      throw err;
    }
  }

  /**
   * Runs code in the task's world. A timeout (the server's or ours) is not an error: the agent
   * sees it as the output and can try something cheaper.
   */
  async execute(taskId: string, code: string): Promise<ExecuteResult> {
    try {
      const { value, reinitialized } = await this.withWorld(taskId, () =>
        this.post(
          '/execute',
          { task_id: taskId, code },
          ExecuteOutputSchema,
          this.executeTimeoutMs,
        ),
      );
      return { output: value, timedOut: SERVER_TIMED_OUT.test(value), reinitialized };
    } catch (err) {
      if (err instanceof AppWorldTimeoutError) {
        this.recovery = this.awaitRecovery();
        const output = `Execution timed out: the AppWorld server at ${this.url} gave no output within ${err.timeoutMs / 1000} s and is still running the code.`;
        return { output, timedOut: true, reinitialized: false, serverStuck: true };
      }
      if (err instanceof AppWorldServerError && TIMED_OUT.test(err.detail)) {
        return {
          output: `Execution timed out: ${err.detail}`,
          timedOut: true,
          reinitialized: false,
        };
      }
      throw err;
    }
  }

  async taskCompleted(taskId: string): Promise<boolean> {
    const { value } = await this.withWorld(taskId, () =>
      this.post('/task_completed', { task_id: taskId }, TaskCompletedOutputSchema),
    );
    return value;
  }

  async evaluate(taskId: string): Promise<EvaluateOutput> {
    const { value } = await this.withWorld(taskId, () =>
      this.post(
        '/evaluate',
        { task_id: taskId, suppress_errors: true, report: false },
        EvaluateOutputSchema,
      ),
    );
    return value;
  }

  async save(taskId: string): Promise<void> {
    await this.withWorld(taskId, () => this.post('/save', { task_id: taskId }, z.unknown()));
  }

  /**
   * Closes the task's world; a world the server no longer holds counts as closed. A busy server
   * is left alone: the next `/initialize` replaces the world anyway.
   */
  async close(taskId: string): Promise<void> {
    if (this.busy || this.stuck) return;
    try {
      await this.post('/close', { task_id: taskId }, z.unknown(), this.closeTimeoutMs);
    } catch (err) {
      if (isLostWorld(err)) return;
      throw err;
    }
  }

  /** Closes every world the server process holds; skipped while the server is busy. */
  async closeAll(): Promise<void> {
    if (this.busy || this.stuck) return;
    await this.post('/close_all', {}, z.unknown(), this.closeTimeoutMs);
  }

  /**
   * A task's instruction without initializing a world (`GET /tasks/{task_id}`), so task lists
   * can show it.
   */
  async showTask(taskId: string): Promise<InitializeOutput> {
    return this.request(
      'GET',
      `/tasks/${encodeURIComponent(taskId)}`,
      undefined,
      InitializeOutputSchema,
    );
  }

  /**
   * Probes `GET /` until the server answers (true) or `busyWaitMs` has passed (false). The
   * real server answers nothing while it executes, so an answer means the hung code ended.
   */
  private async awaitRecovery(): Promise<boolean> {
    const deadline = this.timers.timeout(this.busyWaitMs);
    const stop = AbortSignal.any([deadline, this.stopProbing.signal]);
    let answered = false;
    while (!stop.aborted && !answered) {
      await this.timers.sleep(this.probeIntervalMs, stop);
      if (stop.aborted) break;
      answered = await this.probeHttp(stop);
    }
    this.recovery = null;
    if (!answered) this.stuck = true;
    return answered;
  }

  /** One `GET /` that gives up after `probeIntervalMs` or when `stop` aborts. */
  private async probeHttp(stop: AbortSignal): Promise<boolean> {
    try {
      const res = await this.fetchImpl(`${this.url}/`, {
        signal: AbortSignal.any([stop, this.timers.timeout(this.probeIntervalMs)]),
      });
      await res.arrayBuffer();
      return res.ok;
    } catch {
      return false;
    }
  }

  /** Runs a task route; when the server lost the world, initializes the task once and retries. */
  private async withWorld<T>(
    taskId: string,
    call: () => Promise<T>,
  ): Promise<{ value: T; reinitialized: boolean }> {
    try {
      return { value: await call(), reinitialized: false };
    } catch (err) {
      if (!isLostWorld(err)) throw err;
      const experiment = this.world?.taskId === taskId ? this.world.experimentName : undefined;
      if (experiment === undefined) throw err;
      await this.initialize(taskId, experiment);
      return { value: await call(), reinitialized: true };
    }
  }

  private post<T extends z.ZodType>(
    route: string,
    body: Record<string, unknown>,
    schema: T,
    timeoutMs = this.requestTimeoutMs,
  ): Promise<z.infer<T>> {
    return this.request('POST', route, body, schema, timeoutMs);
  }

  private async request<T extends z.ZodType>(
    method: 'GET' | 'POST',
    route: string,
    body: Record<string, unknown> | undefined,
    schema: T,
    timeoutMs = this.requestTimeoutMs,
  ): Promise<z.infer<T>> {
    if (this.busy || this.stuck) throw new AppWorldBusyError(this.url, route);
    await this.connect();
    let status: number;
    let text: string;
    try {
      const res = await this.fetchImpl(this.url + route, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: this.timers.timeout(timeoutMs),
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      if (isAbortTimeout(err)) {
        throw new AppWorldTimeoutError(this.url, route, timeoutMs, { cause: err });
      }
      throw new AppWorldUnreachableError(this.url, networkReason(err), { cause: err });
    }
    if (status < 200 || status >= 300) {
      throw new AppWorldServerError(this.url, route, status, errorDetail(text));
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new AppWorldServerError(
        this.url,
        route,
        status,
        `reply is not JSON: ${snippet(text)}`,
        {
          cause: err,
        },
      );
    }
    const wrapped = EnvelopeSchema.safeParse(json);
    const parsed = wrapped.success
      ? schema.safeParse(wrapped.data.output)
      : ({ success: false, error: wrapped.error } as const);
    if (!parsed.success) {
      throw new AppWorldServerError(
        this.url,
        route,
        status,
        `unexpected reply ${snippet(text)}: ${z.prettifyError(parsed.error)}`,
        { cause: parsed.error },
      );
    }
    return parsed.data as z.infer<T>;
  }
}

function isLostWorld(err: unknown): boolean {
  return err instanceof AppWorldServerError && err.status === 400 && LOST_WORLD.test(err.detail);
}

function isAbortTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
}

/** `fetch failed` hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, ECONNRESET …). */
function networkReason(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause && typeof cause === 'object') {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const message = (cause as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return err instanceof Error ? err.message : String(err);
}

function errorDetail(text: string): string {
  try {
    const body = ErrorBodySchema.safeParse(JSON.parse(text));
    if (body.success) {
      const { detail } = body.data;
      return typeof detail === 'string' ? detail : JSON.stringify(detail);
    }
  } catch {
    // not JSON (e.g. "Internal Server Error" from uvicorn): fall through to the raw text
  }
  return snippet(text);
}

function snippet(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

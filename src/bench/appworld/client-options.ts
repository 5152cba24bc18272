import type { Clock } from '../../clock.js';

export type AppWorldClientOptions = {
  /** Base URL of one environment server, e.g. `http://127.0.0.1:8000`. */
  url: string;
  /**
   * Extra `/initialize` fields (AppWorld's `AppWorldInitDefaults`), from `appworld.initialize`.
   * @example { timeout_seconds: 60, raise_on_extra_parameters: true }
   */
  initializeOptions?: Record<string, unknown>;
  /**
   * How long a TCP connect may take before the server counts as unreachable; kept short so a
   * missing server fails at once (issue 8: "well under 2 s").
   * @default 1000
   */
  connectTimeoutMs?: number;
  /**
   * Timeout of every route but `/execute`. `/initialize` loads the task's databases, which takes
   * a few seconds on a real install.
   * @default 120_000
   */
  requestTimeoutMs?: number;
  /**
   * Timeout of `/execute`. By default it follows the server's own per-execution limit, so the
   * server's timeout message arrives first: `initialize.timeout_seconds` (AppWorld's default 100)
   * plus EXECUTE_MARGIN_MS; with `timeout_seconds: null` (no server limit) NO_SERVER_LIMIT_MS.
   * @default executeTimeoutFor(initializeOptions.timeout_seconds)
   */
  executeTimeoutMs?: number;
  /**
   * After our own `/execute` timeout the server is still running that code and answers nothing
   * else (it is serial): no request goes to it until `GET /` answers, probed every
   * `probeIntervalMs`, or until this much time has passed, after which it counts as stuck.
   * @default the execute timeout
   */
  busyWaitMs?: number;
  /** @default 5_000 */
  probeIntervalMs?: number;
  /** Timeout of `/close` and `/close_all`, so cleanup stays bounded. @default 30_000 */
  closeTimeoutMs?: number;
  /** Injected for tests. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Injected for tests, so no test waits on real time. @default systemClock */
  timers?: Pick<Clock, 'timeout' | 'sleep'>;
};

/** AppWorld's own per-execution limit when `/initialize` does not set one (AppWorldInitDefaults). */
export const APPWORLD_DEFAULT_TIMEOUT_SECONDS = 100;
/** How much longer than the server's limit the client waits for an `/execute` answer. */
export const EXECUTE_MARGIN_MS = 30_000;
/** The client's `/execute` timeout when the server has none (`timeout_seconds: null`): 30 min. */
export const NO_SERVER_LIMIT_MS = 30 * 60_000;

/** The `/execute` timeout that lets the server's own limit (`timeout_seconds`) answer first. */
export function executeTimeoutFor(timeoutSeconds: unknown): number {
  if (timeoutSeconds === null) return NO_SERVER_LIMIT_MS;
  const seconds =
    typeof timeoutSeconds === 'number' && timeoutSeconds > 0
      ? timeoutSeconds
      : APPWORLD_DEFAULT_TIMEOUT_SECONDS;
  return seconds * 1000 + EXECUTE_MARGIN_MS;
}

export type ExecuteResult = {
  /** What the code printed (or the traceback), as AppWorld returns it. */
  output: string;
  /**
   * True when the execution timed out: AppWorld's own limit (`timeout_seconds`, reported as
   * "Execution failed … timed out after N seconds" in the output) or our request timeout.
   */
  timedOut: boolean;
  /** True when the server had lost the task's world and it was initialized again first. */
  reinitialized: boolean;
  /**
   * True when our own timeout fired: the server is still running the code and answers nothing
   * until it is done, so the episode cannot go on there.
   */
  serverStuck?: boolean;
};

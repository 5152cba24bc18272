import { BenchmarkError } from '../../errors.js';

/** How to get a server running; every "unreachable" message ends with it (issue 8). */
export const START_SERVER_HINT =
  'Start one with `appworld serve environment --port 8000 --root <APPWORLD_ROOT>` (first time: ' +
  '`pip install appworld && appworld install && appworld download data`; note that it listens ' +
  'on all interfaces and first stops whatever holds its port), ' +
  'or set appworld.urls in acon.config.yaml / --appworld-url to where it runs; ' +
  'one server runs one task at a time, so start one per port for parallel tasks and list them all. ' +
  'To try acon without AppWorld, use `--bench apptown`, which runs offline.';

/** No AppWorld environment server answers at `url` (refused, unknown host, connect timeout). */
export class AppWorldUnreachableError extends BenchmarkError {
  override name = 'AppWorldUnreachableError';
  constructor(
    readonly url: string,
    readonly reason: string,
    opts?: ErrorOptions,
  ) {
    super(`no AppWorld environment server at ${url} (${reason}). ${START_SERVER_HINT}`, opts);
  }
}

/** The server answered a route with an error (HTTP 4xx/5xx) or with a reply of the wrong shape. */
export class AppWorldServerError extends BenchmarkError {
  override name = 'AppWorldServerError';
  constructor(
    readonly url: string,
    readonly route: string,
    readonly status: number | undefined,
    readonly detail: string,
    opts?: ErrorOptions,
  ) {
    super(
      `AppWorld server ${url}${route} failed${status === undefined ? '' : ` (HTTP ${status})`}: ${detail}`,
      opts,
    );
  }
}

/** The server accepted the connection but did not answer a route in time. */
export class AppWorldTimeoutError extends BenchmarkError {
  override name = 'AppWorldTimeoutError';
  constructor(
    readonly url: string,
    readonly route: string,
    readonly timeoutMs: number,
    opts?: ErrorOptions,
  ) {
    super(
      `AppWorld server ${url}${route} did not answer within ${timeoutMs / 1000} s; ` +
        'the server may be stuck on an earlier request (restart it) or overloaded',
      opts,
    );
  }
}

/**
 * A request was not sent: the server is still running code whose `/execute` we stopped waiting
 * for, and the real server answers nothing else until that code ends.
 */
export class AppWorldBusyError extends BenchmarkError {
  override name = 'AppWorldBusyError';
  constructor(
    readonly url: string,
    readonly route: string,
  ) {
    super(
      `AppWorld server ${url} is still running code from an earlier /execute that timed out; ` +
        `${route} was not sent. Restart that server if it stays stuck, or raise ` +
        'appworld.initialize.timeout_seconds so AppWorld stops such code itself',
    );
  }
}

/**
 * `/initialize` failed with HTTP 500: AppWorld could not load the task, because the id is not
 * one of its tasks or because the server runs where it finds no `data/` folder.
 */
export class AppWorldInitializeError extends BenchmarkError {
  override name = 'AppWorldInitializeError';
  constructor(
    readonly url: string,
    readonly taskId: string,
    opts?: ErrorOptions,
  ) {
    super(
      `AppWorld server ${url} could not initialize task ${taskId} (HTTP 500): unknown task id, ` +
        'or the server was started outside $APPWORLD_ROOT — start it there or with ' +
        '`appworld serve environment --root <APPWORLD_ROOT>`',
      opts,
    );
  }
}

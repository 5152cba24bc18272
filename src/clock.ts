/**
 * Time as acon sees it: the one clock type. A component takes the part it uses
 * (`Pick<Clock, 'now' | 'sleep'>` for latency, backoff and rate limits; `'every'` for a progress
 * display; `'setTimeout' | 'clearTimeout'` for deadlines; `'timeout'` for a request's signal),
 * and tests pass a fake of that part, so no test waits on real time.
 */
export type Clock = {
  /** Epoch milliseconds. */
  now(): number;
  /**
   * Resolves after `ms`, or at once when `signal` aborts; an aborted sleep clears its timer, so
   * Ctrl-C during a long Retry-After does not keep the process alive (issue #31).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Calls `fn` once after `ms`, unless the handle is passed to `clearTimeout` first. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Calls `fn` every `ms` until the returned function is called; never keeps the process alive. */
  every(ms: number, fn: () => void): () => void;
  /** A signal that aborts after `ms`. */
  timeout(ms: number): AbortSignal;
};

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
    }),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  every(ms, fn) {
    const t = setInterval(fn, ms);
    t.unref();
    return () => clearInterval(t);
  },
  timeout: (ms) => AbortSignal.timeout(ms),
};

/** Time as the LLM layer sees it (latency, backoff, rate limits); tests pass a fake one. */
export type Clock = {
  now(): number;
  /**
   * Resolves after `ms`, or at once when `signal` aborts; an aborted sleep clears its timer, so
   * Ctrl-C during a long Retry-After does not keep the process alive (issue #31).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
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
};

import type { Clock } from '../../src/clock.js';

/**
 * Timers on a virtual clock that moves only when a test calls `advance`: timeouts and sleeps
 * fire then, in order of their deadlines, so no test waits on real time.
 */
export class ManualTimers implements Pick<Clock, 'timeout' | 'sleep'> {
  now = 0;
  private pending: { at: number; fire: () => void }[] = [];

  timeout(ms: number): AbortSignal {
    const controller = new AbortController();
    this.pending.push({
      at: this.now + ms,
      fire: () => controller.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError')),
    });
    return controller.signal;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const entry = { at: this.now + ms, fire: () => resolve() };
      this.pending.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          this.pending = this.pending.filter((p) => p !== entry);
          resolve();
        },
        { once: true },
      );
    });
  }

  /** Timers not yet fired. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Moves the clock on by `ms` and fires every timer due by then. */
  advance(ms: number): void {
    this.now += ms;
    const due = this.pending.filter((p) => p.at <= this.now).sort((a, b) => a.at - b.at);
    this.pending = this.pending.filter((p) => p.at > this.now);
    for (const p of due) p.fire();
  }
}

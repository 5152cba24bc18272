import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from './clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('systemClock.sleep', () => {
  it('resolves after the time', async () => {
    vi.useFakeTimers();
    let done = false;
    const sleeping = systemClock.sleep(3_600_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(3_599_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await sleeping;
    expect(done).toBe(true);
  });

  it('stops at once on abort and clears its timer, so nothing keeps the process alive', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const sleeping = systemClock.sleep(3_600_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    await sleeping;
    expect(vi.getTimerCount()).toBe(0);
    await systemClock.sleep(3_600_000, controller.signal); // already aborted: no timer at all
    expect(vi.getTimerCount()).toBe(0);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../clock.js';
import { EndpointQueue } from './endpoint-queue.js';

const idleClock: Pick<Clock, 'now' | 'sleep'> = { now: () => 0, sleep: async () => undefined };

/** A task that stays running until released. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { done, release };
}

describe('EndpointQueue', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('never runs more than `concurrency` tasks at once', async () => {
    const queue = new EndpointQueue({ concurrency: 3, rpm: 0, tpm: 0 }, idleClock);
    let running = 0;
    let peak = 0;
    const gates = Array.from({ length: 10 }, gate);
    const all = gates.map((g) =>
      queue.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await g.done;
        running--;
      }),
    );
    await Promise.resolve();
    expect(queue.inFlight).toBe(3);
    expect(queue.waiting).toBe(7);
    for (const g of gates) g.release();
    await Promise.all(all);
    expect(peak).toBe(3);
  });

  it('starts at most `rpm` requests in a rolling minute', async () => {
    vi.useFakeTimers();
    const queue = new EndpointQueue({ concurrency: 10, rpm: 2, tpm: 0 }, idleClock);
    const started: number[] = [];
    const t0 = Date.now();
    const all = [1, 2, 3].map(() => queue.run(async () => void started.push(Date.now() - t0)));
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(60_000);
    await Promise.all(all);
    expect(started).toHaveLength(3);
    expect(started[2]).toBeGreaterThanOrEqual(60_000);
  });

  it('waits for tokens before taking a concurrency slot', async () => {
    let now = 0;
    const sleeps: number[] = [];
    const clock: Pick<Clock, 'now' | 'sleep'> = {
      now: () => now,
      sleep: async (ms) => void (sleeps.push(ms), (now += ms)),
    };
    const queue = new EndpointQueue({ concurrency: 1, rpm: 0, tpm: 6000 }, clock);
    expect(queue.limitsTokens).toBe(true);
    await queue.run(async () => 'a', { tokens: 5000 });
    await queue.run(async () => 'b', { tokens: 5000 });
    // 4000 missing at 6000 per minute = 40 s
    expect(sleeps).toEqual([40_000]);
  });

  it('skips the token gate when tpm is unlimited', () => {
    expect(new EndpointQueue({ concurrency: 1, rpm: 0, tpm: 0 }, idleClock).limitsTokens).toBe(
      false,
    );
  });
});

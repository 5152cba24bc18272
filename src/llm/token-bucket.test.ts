import { describe, expect, it } from 'vitest';
import type { Clock } from '../clock.js';
import { TokenBucket } from './token-bucket.js';

/** A clock that only moves when someone sleeps; sleeps are recorded. */
function fakeClock(): Pick<Clock, 'now' | 'sleep'> & { sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

describe('TokenBucket', () => {
  it('lets requests through while the bucket has tokens', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(1000, clock);
    await bucket.take(400);
    await bucket.take(600);
    expect(clock.sleeps).toEqual([]);
    expect(bucket.tokens).toBe(0);
  });

  it('waits until enough tokens have refilled', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(1000, clock);
    await bucket.take(600);
    await bucket.take(600);
    // 200 tokens missing at 1000 per minute = 12 s
    expect(clock.sleeps).toEqual([12_000]);
  });

  it('serves takers first come, first served', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(100, clock);
    const order: string[] = [];
    await Promise.all([
      bucket.take(100).then(() => order.push('a')),
      bucket.take(90).then(() => order.push('big')),
      bucket.take(1).then(() => order.push('small')),
    ]);
    expect(order).toEqual(['a', 'big', 'small']);
  });

  it('lets a request larger than the bucket through with a full bucket', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(100, clock);
    await bucket.take(5000);
    expect(clock.sleeps).toEqual([]);
    expect(bucket.tokens).toBe(0);
  });

  it('rejects a non-positive rate', () => {
    expect(() => new TokenBucket(0, fakeClock())).toThrow(/perMinute/);
  });
});

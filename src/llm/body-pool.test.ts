import { describe, expect, it } from 'vitest';
import { BodyPool } from './body-pool.js';

describe('BodyPool', () => {
  it('gives buffers of the size asked for, and reuses the memory of one given back', () => {
    const pool = new BodyPool();
    const first = pool.take(20_000);
    expect(first.length).toBe(20_000);
    pool.give(first);
    expect(pool.idleBytes).toBe(32 * 1024);
    // A body of another size in the same block size gets the same memory.
    const second = pool.take(30_000);
    expect(second.length).toBe(30_000);
    expect(second.buffer).toBe(first.buffer);
    expect(pool.idleBytes).toBe(0);
    // Until it is given back, a body's memory is never handed out again.
    expect(pool.take(30_000).buffer).not.toBe(second.buffer);
  });

  it('ignores buffers it did not give, and keeps no more free memory than its limit', () => {
    const pool = new BodyPool(64 * 1024);
    pool.give(Buffer.alloc(16 * 1024));
    expect(pool.idleBytes).toBe(0);
    const bodies = [pool.take(40_000), pool.take(40_000)];
    for (const b of bodies) pool.give(b);
    expect(pool.idleBytes).toBe(64 * 1024);
  });
});

import { describe, expect, it } from 'vitest';
import { ServerPool } from './server-pool.js';

describe('ServerPool', () => {
  it('hands out free servers in order, then makes callers wait first come, first served', async () => {
    const pool = new ServerPool(['a', 'b']);
    expect(await pool.acquire()).toBe('a');
    expect(await pool.acquire()).toBe('b');
    const got: string[] = [];
    const third = pool.acquire().then((s) => got.push(`3:${s}`));
    const fourth = pool.acquire().then((s) => got.push(`4:${s}`));
    await Promise.resolve();
    expect(got).toEqual([]);
    pool.release('b');
    await third;
    expect(got).toEqual(['3:b']);
    pool.release('a');
    await fourth;
    expect(got).toEqual(['3:b', '4:a']);
    expect(pool.busy).toBe(2);
  });

  it('puts a released server at the back of the line', async () => {
    const pool = new ServerPool(['a', 'b']);
    const first = await pool.acquire();
    pool.release(first);
    expect(await pool.acquire()).toBe('b');
    expect(await pool.acquire()).toBe('a');
  });

  it('refuses to release a server that is not leased', () => {
    const pool = new ServerPool(['a']);
    expect(() => pool.release('a')).toThrow(/not leased/);
  });

  it('needs at least one server and no repeats', () => {
    expect(() => new ServerPool([])).toThrow(/at least one/);
    expect(() => new ServerPool(['a', 'a'])).toThrow(/repeat/);
  });

  it('gives a retired server no more work, and fails callers once every server is retired', async () => {
    const pool = new ServerPool(['a', 'b'], () => new Error('no server left'));
    const a = await pool.acquire();
    const b = await pool.acquire();
    const waiting = pool.acquire();
    pool.retire(a);
    pool.release(b);
    expect(await waiting).toBe('b');
    const later = pool.acquire();
    pool.retire('b');
    await expect(later).rejects.toThrow('no server left');
    await expect(pool.acquire()).rejects.toThrow('no server left');
    expect(() => pool.retire('a')).toThrow(/not leased/);
  });
});

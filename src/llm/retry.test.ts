import { describe, expect, it } from 'vitest';
import { ConfigError, ContextLengthError, ProviderError } from '../errors.js';
import {
  backoffDelay,
  isRetryable,
  parseRetryAfter,
  withRetry,
  type RetryOptions,
} from './retry.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

/** Records requested delays and resolves at once: no real waiting. */
function fakeSleep() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

function options(
  sleep: (ms: number) => Promise<void>,
  over: Partial<RetryOptions> = {},
): RetryOptions {
  return {
    maxRetries: 5,
    baseDelayMs: 100,
    maxDelayMs: 1000,
    sleep,
    random: () => 0.5,
    now: () => NOW,
    ...over,
  };
}

/** A function failing with the given errors in turn, then returning 'ok'. */
function failing(...errors: unknown[]) {
  let calls = 0;
  const fn = async () => {
    calls++;
    const next = errors.shift();
    if (next !== undefined) throw next;
    return 'ok';
  };
  return { fn, calls: () => calls };
}

const http = (status: number, headers?: Record<string, string>) =>
  new ProviderError(`HTTP ${status}`, status, headers ? { cause: { headers } } : undefined);

describe('withRetry', () => {
  it('hands the abort signal to the sleep, which can then clear its timer', async () => {
    const controller = new AbortController();
    const signals: (AbortSignal | undefined)[] = [];
    const sleep = (_ms: number, signal?: AbortSignal) => {
      signals.push(signal);
      controller.abort();
      return Promise.resolve();
    };
    const { fn } = failing(http(429, { 'retry-after': '3600' }));
    await expect(
      withRetry(fn, { ...options(sleep), signal: controller.signal }),
    ).rejects.toBeInstanceOf(ProviderError);
    expect(signals).toEqual([controller.signal]);
  });

  it('backs off exponentially with full jitter, capped at maxDelayMs', async () => {
    const { delays, sleep } = fakeSleep();
    const { fn } = failing(http(500), http(502), http(503), http(500), http(500));
    await expect(withRetry(fn, options(sleep))).resolves.toBe('ok');
    // random() = 0.5 of windows 100, 200, 400, 800, 1000 (capped)
    expect(delays).toEqual([50, 100, 200, 400, 500]);
  });

  it.each([
    ['seconds', { 'retry-after': '2' }, 2000],
    ['an HTTP date', { 'retry-after': new Date(NOW + 7000).toUTCString() }, 7000],
    ['retry-after-ms', { 'retry-after-ms': '250', 'retry-after': '9' }, 250],
  ])('waits what a 429 asks for in %s', async (_kind, headers, expected) => {
    const { delays, sleep } = fakeSleep();
    const { fn, calls } = failing(http(429, headers));
    await expect(withRetry(fn, options(sleep))).resolves.toBe('ok');
    expect(delays).toEqual([expected]);
    expect(calls()).toBe(2);
  });

  it('reads Retry-After from a Headers object on the cause (as openai keeps it)', async () => {
    const { delays, sleep } = fakeSleep();
    const err = new ProviderError('HTTP 429', 429, {
      cause: { headers: new Headers({ 'Retry-After': '3' }) },
    });
    await withRetry(failing(err).fn, options(sleep));
    expect(delays).toEqual([3000]);
  });

  it('clamps a very long Retry-After to maxRetryAfterMs', async () => {
    const { delays, sleep } = fakeSleep();
    await withRetry(
      failing(http(429, { 'retry-after': '3600' })).fn,
      options(sleep, { maxRetryAfterMs: 60_000 }),
    );
    expect(delays).toEqual([60_000]);
  });

  it('retries timeouts and connection errors (no status)', async () => {
    const { delays, sleep } = fakeSleep();
    const { fn, calls } = failing(
      new ProviderError('timed out'),
      new ProviderError('ECONNREFUSED'),
    );
    await expect(withRetry(fn, options(sleep))).resolves.toBe('ok');
    expect(calls()).toBe(3);
    expect(delays).toHaveLength(2);
  });

  it.each([400, 401, 403, 404, 422])('never retries HTTP %i', async (status) => {
    const { delays, sleep } = fakeSleep();
    const err = http(status);
    const { fn, calls } = failing(err);
    await expect(withRetry(fn, options(sleep))).rejects.toBe(err);
    expect(calls()).toBe(1);
    expect(delays).toEqual([]);
  });

  it('never retries a context-length error, a config error or a plain bug', async () => {
    for (const err of [
      new ContextLengthError('too long', 400),
      new ConfigError('environment', 'endpoints.default.api_key_env', 'OPENAI_API_KEY is not set'),
      new TypeError('x is undefined'),
    ]) {
      const { fn, calls } = failing(err);
      await expect(withRetry(fn, options(fakeSleep().sleep))).rejects.toBe(err);
      expect(calls()).toBe(1);
    }
  });

  it('gives up after maxRetries and says how many attempts were made', async () => {
    const { delays, sleep } = fakeSleep();
    const last = http(503);
    const { fn, calls } = failing(http(503), http(503), last);
    const err = await withRetry(fn, options(sleep, { maxRetries: 2 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toBe('HTTP 503 (gave up after 3 attempts)');
    expect((err as ProviderError).status).toBe(503);
    expect((err as ProviderError).cause).toBe(last);
    expect(calls()).toBe(3);
    expect(delays).toHaveLength(2);
  });

  it('makes no further attempt once the signal is aborted', async () => {
    const controller = new AbortController();
    const { fn, calls } = failing(http(500), http(500));
    const sleep = async () => controller.abort();
    await expect(withRetry(fn, options(sleep, { signal: controller.signal }))).rejects.toThrow(
      /^HTTP 500$/,
    );
    expect(calls()).toBe(1);
  });

  it('stops waiting for a long Retry-After when the signal is aborted', async () => {
    const controller = new AbortController();
    const { fn, calls } = failing(http(429, { 'retry-after': '60' }));
    const never = () => new Promise<void>(() => undefined);
    const pending = withRetry(fn, {
      ...options(never, { signal: controller.signal }),
      onRetry: () => void setTimeout(() => controller.abort(), 0),
    });
    await expect(pending).rejects.toThrow(/^HTTP 429$/);
    expect(calls()).toBe(1);
  });

  it('tells onRetry about each wait', async () => {
    const seen: number[] = [];
    await withRetry(failing(http(429, { 'retry-after': '1' })).fn, {
      ...options(fakeSleep().sleep),
      onRetry: ({ delayMs }) => seen.push(delayMs),
    });
    expect(seen).toEqual([1000]);
  });
});

describe('isRetryable', () => {
  it.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
    [400, false],
    [401, false],
    [404, false],
  ])('HTTP %i → %s', (status, expected) => {
    expect(isRetryable(http(status))).toBe(expected);
  });
});

describe('parseRetryAfter', () => {
  it('ignores absent, negative or unparsable values', () => {
    expect(parseRetryAfter({}, NOW)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' }, NOW)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after-ms': '-5' }, NOW)).toBeUndefined();
  });

  it('treats a date in the past as no wait', () => {
    expect(parseRetryAfter({ 'retry-after': new Date(NOW - 5000).toUTCString() }, NOW)).toBe(0);
  });
});

describe('backoffDelay', () => {
  it('stays within the window', () => {
    expect(backoffDelay(3, { baseDelayMs: 100, maxDelayMs: 10_000, random: () => 0.999 })).toBe(
      799,
    );
    expect(backoffDelay(3, { baseDelayMs: 100, maxDelayMs: 10_000, random: () => 0 })).toBe(0);
  });
});

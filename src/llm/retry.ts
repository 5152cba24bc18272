import { ContextLengthError, ProviderError } from '../errors.js';
import { withLinkedSignal } from './linked-signal.js';

export type RetryOptions = {
  /** Retries after the first attempt; 0 = try once. */
  maxRetries: number;
  /**
   * Cap of the first backoff window; window n is `baseDelayMs * 2^n`, capped at `maxDelayMs`.
   * @default 500
   */
  baseDelayMs?: number;
  /** @default 30_000 */
  maxDelayMs?: number;
  /**
   * Longest server-requested wait (`Retry-After`) honoured; longer requests are clamped to it.
   * @default 120_000
   */
  maxRetryAfterMs?: number;
  /** Waits `ms`; given the signal, it stops waiting (and clears its timer) when that aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1); seeded in tests. */
  random: () => number;
  /** Wall clock for `Retry-After: <HTTP date>`. @default Date.now */
  now?: () => number;
  /** @default isRetryable */
  shouldRetry?: (err: unknown) => boolean;
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  /** Stops retrying (the last error is thrown) once aborted. */
  signal?: AbortSignal;
};

/** HTTP statuses worth another try: request timeout, conflict/lock, rate limit. 5xx too. */
const RETRYABLE_STATUS = new Set([408, 409, 429]);

/**
 * The default retry policy: provider errors without a status (timeouts, refused connections,
 * malformed responses), 408/409/429 and 5xx are transient. Other 4xx (400, 401, 403, 404, 422),
 * a context-length error and anything that is not a ProviderError (a bug, a config error) are not.
 */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof ProviderError) || err instanceof ContextLengthError) return false;
  if (err.status === undefined) return true;
  return RETRYABLE_STATUS.has(err.status) || err.status >= 500;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function')
    return (headers as Headers).get(name) ?? undefined;
  const raw = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

/**
 * The wait a server asked for, in ms: `retry-after-ms` (OpenAI, Azure), else `Retry-After` as
 * seconds or as an HTTP date (RFC 9110 §10.2.3). Undefined when absent or unparsable.
 */
export function parseRetryAfter(headers: HeaderBag, now: number): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const value = header(headers, 'retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Headers of an HTTP error, on the error itself or on its cause (openai's APIError keeps them). */
function headersOf(err: unknown): HeaderBag | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 3; depth++) {
    const h = (e as { headers?: unknown }).headers;
    if (h && typeof h === 'object') return h as HeaderBag;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Full-jitter exponential backoff (AWS Architecture Blog, "Exponential Backoff and Jitter"). */
export function backoffDelay(
  retry: number,
  opts: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>,
): number {
  const base = opts.baseDelayMs ?? 500;
  const cap = opts.maxDelayMs ?? 30_000;
  return Math.floor(opts.random() * Math.min(cap, base * 2 ** retry));
}

/**
 * Runs `fn` until it succeeds, a non-retryable error occurs or `maxRetries` retries are spent.
 *
 * Not the `openai` client's own `maxRetries` (openai 6.49, `client.ts` `retryRequest`), which
 * the provider turns off: between attempts it waits with a bare `setTimeout`, so an abort (Ctrl-C)
 * is seen only when the wait ends, and it honours any `Retry-After` unbounded (an hour if a server
 * says so); its waits and jitter use the global timers and `Math.random`, not the run's clock and
 * seeded random; it does not retry a 200 whose body is not a chat completion; and it has no hook
 * per attempt, so attempts could not be counted nor each one pass through the endpoint's
 * concurrency, rpm and tpm limits (EndpointQueue), as they do here.
 * Between attempts it waits what the server asked for (`Retry-After`), else a jittered backoff.
 * When it gives up after retrying a ProviderError, the error thrown says how many attempts were
 * made and keeps the last error as its cause.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  opts: RetryOptions,
): Promise<T> {
  const shouldRetry = opts.shouldRetry ?? isRetryable;
  const now = opts.now ?? Date.now;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      const canRetry = attempt < opts.maxRetries && !opts.signal?.aborted && shouldRetry(error);
      if (!canRetry) throw attempt > 0 ? gaveUp(error, attempt + 1) : error;
      const headers = headersOf(error);
      const asked = headers ? parseRetryAfter(headers, now()) : undefined;
      const delayMs =
        asked !== undefined
          ? Math.min(asked, opts.maxRetryAfterMs ?? 120_000)
          : backoffDelay(attempt, opts);
      opts.onRetry?.({ attempt, delayMs, error });
      await sleepUnlessAborted(opts.sleep(delayMs, opts.signal), opts.signal);
      if (opts.signal?.aborted) throw attempt > 0 ? gaveUp(error, attempt + 1) : error;
    }
  }
}

/** A long Retry-After must not hold up Ctrl-C. */
function sleepUnlessAborted(sleeping: Promise<void>, parent: AbortSignal | undefined) {
  if (!parent) return sleeping;
  if (parent.aborted) return Promise.resolve();
  return withLinkedSignal(
    parent,
    (signal) =>
      new Promise<void>((resolve) => {
        signal!.addEventListener('abort', () => resolve(), { once: true });
        void sleeping.then(resolve, resolve);
      }),
  );
}

function gaveUp(error: unknown, attempts: number): unknown {
  if (!(error instanceof ProviderError) || error instanceof ContextLengthError) return error;
  return new ProviderError(`${error.message} (gave up after ${attempts} attempts)`, error.status, {
    cause: error,
  });
}

import PQueue from 'p-queue';
import type { Clock } from '../clock.js';
import { withLinkedSignal } from './linked-signal.js';
import { TokenBucket } from './token-bucket.js';

export type EndpointLimits = {
  /** Requests in flight at once. */
  concurrency: number;
  /** Requests started per rolling minute; 0 = unlimited. */
  rpm: number;
  /** Estimated tokens (prompt + max completion) per minute; 0 = unlimited. */
  tpm: number;
};

const MINUTE_MS = 60_000;

/**
 * The limits of one endpoint: a p-queue for concurrency and requests per minute (sliding window,
 * so no burst at a window edge), behind a token bucket for tokens per minute. A request takes its
 * tokens before it queues, so waiting for tokens never holds a concurrency slot.
 */
export class EndpointQueue {
  private readonly queue: PQueue;
  private readonly bucket: TokenBucket | undefined;

  constructor(
    readonly limits: EndpointLimits,
    clock: Pick<Clock, 'now' | 'sleep'>,
  ) {
    this.queue = new PQueue({
      concurrency: limits.concurrency,
      ...(limits.rpm > 0 ? { intervalCap: limits.rpm, interval: MINUTE_MS, strict: true } : {}),
    });
    this.bucket = limits.tpm > 0 ? new TokenBucket(limits.tpm, clock) : undefined;
  }

  /**
   * Runs `fn` within the endpoint's limits.
   * @param tokens estimated tokens of the request, for the tokens-per-minute limit
   */
  async run<T>(fn: () => Promise<T>, opts: { tokens?: number; signal?: AbortSignal } = {}) {
    if (this.bucket && opts.tokens) await this.bucket.take(opts.tokens);
    // p-queue listens on the signal of every task it holds: give it one of its own per task,
    // never the run's (which would collect a listener per waiting call).
    return withLinkedSignal(opts.signal, (signal) => this.queue.add(fn, { signal }));
  }

  /** Whether a request's token estimate is needed (it costs a tokenizer pass). */
  get limitsTokens(): boolean {
    return this.bucket !== undefined;
  }

  /** Requests running now. */
  get inFlight(): number {
    return this.queue.pending;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.queue.size;
  }
}

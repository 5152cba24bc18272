import type { Clock } from '../clock.js';

const MINUTE_MS = 60_000;

/**
 * A tokens-per-minute gate: a bucket of `perMinute` tokens that refills continuously. Takers are
 * served first come, first served, so a large request is not starved by a stream of small ones.
 * A request larger than the whole bucket waits for a full bucket and takes all of it.
 */
export class TokenBucket {
  private available: number;
  private last: number;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly perMinute: number,
    private readonly clock: Pick<Clock, 'now' | 'sleep'>,
  ) {
    if (!(perMinute > 0)) {
      throw new RangeError(`Expected \`perMinute\` to be a number above 0, got \`${perMinute}\``);
    }
    this.available = perMinute;
    this.last = clock.now();
  }

  /** Resolves once `tokens` are taken from the bucket. */
  take(tokens: number): Promise<void> {
    const want = Math.min(Math.max(0, tokens), this.perMinute);
    const turn = this.tail.then(() => this.waitFor(want));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** Tokens in the bucket now (after refill). */
  get tokens(): number {
    this.refill();
    return this.available;
  }

  private refill(): void {
    const now = this.clock.now();
    const gained = ((now - this.last) * this.perMinute) / MINUTE_MS;
    this.available = Math.min(this.perMinute, this.available + gained);
    this.last = now;
  }

  private async waitFor(want: number): Promise<void> {
    for (;;) {
      this.refill();
      if (this.available >= want) {
        this.available -= want;
        return;
      }
      const missing = want - this.available;
      await this.clock.sleep(Math.max(1, Math.ceil((missing * MINUTE_MS) / this.perMinute)));
    }
  }
}

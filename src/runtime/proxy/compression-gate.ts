import PQueue from 'p-queue';
import type { Clock } from '../../clock.js';
import { megabytes, type ProxyLimits } from './limits.js';

/** Why a request went upstream uncompressed: a code for the header, a text for the log. */
export type Skipped = { skipped: true; code: 'too_large' | 'deadline'; text: string };

/**
 * Bounds the compression work of `acon proxy` (issue #60): at most `maxCompressions` run at
 * once, a body over `maxCompressBytes` is never tokenized, and a request whose compression
 * (waiting included) outlasts `compressionDeadlineMs` goes upstream uncompressed. A compression
 * that missed its deadline runs on in its slot, so the bound holds, and what it learns is
 * cached for the conversation's next request; one still waiting when its deadline passes is
 * dropped unstarted.
 */
export class CompressionGate {
  private readonly queue: PQueue;

  constructor(
    private readonly limits: Pick<
      ProxyLimits,
      'maxCompressBytes' | 'maxCompressions' | 'compressionDeadlineMs'
    >,
    private readonly timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
  ) {
    this.queue = new PQueue({ concurrency: limits.maxCompressions });
  }

  /** Compressions running and waiting. */
  get pending(): number {
    return this.queue.size + this.queue.pending;
  }

  /** A body too large to compress, checked before it is even parsed. */
  tooLarge(bodyBytes: number): Skipped | null {
    if (bodyBytes <= this.limits.maxCompressBytes) return null;
    return {
      skipped: true,
      code: 'too_large',
      text: `the body is ${megabytes(bodyBytes)}, over the ${megabytes(this.limits.maxCompressBytes)} acon compresses (--max-compress-mb)`,
    };
  }

  /** The compression's result, or why the request goes uncompressed. */
  run<T>(compress: () => Promise<T>): Promise<T | Skipped> {
    const deadline = this.limits.compressionDeadlineMs;
    return new Promise<T | Skipped>((resolve, reject) => {
      let settled = false;
      const timer = this.timers.setTimeout(() => {
        if (settled) return;
        settled = true;
        resolve({
          skipped: true,
          code: 'deadline',
          text: `compression did not finish within ${deadline / 1000} s (--compression-deadline-s)`,
        });
      }, deadline);
      const finish = (fn: () => void) => {
        this.timers.clearTimeout(timer);
        if (settled) return;
        settled = true;
        fn();
      };
      void this.queue
        .add(async () => {
          // Its request has gone upstream already: no point starting it.
          if (settled) return;
          try {
            const value = await compress();
            finish(() => resolve(value));
          } catch (err) {
            finish(() => reject(err as Error));
          }
        })
        .catch(reject);
    });
  }
}

export function isSkipped(value: unknown): value is Skipped {
  return typeof value === 'object' && value !== null && (value as Skipped).skipped === true;
}

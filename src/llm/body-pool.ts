/**
 * Memory for request bodies, reused from one request to the next.
 *
 * A chat request body is the whole prompt (tens of KB at AppWorld lengths), and it stays
 * referenced until the answer arrives; as a fresh Buffer per request, 64 calls in flight made
 * about 17 MB/s of external memory that only a full garbage collection frees, and V8 ran one
 * every few seconds for that alone (issue #16, bench:throughput: 9 full collections in a run,
 * 4 with reused bodies). A body is taken, filled, sent, and given back once its answer has
 * been read; a body that is not given back (a failed request) is left to the collector.
 */
export class BodyPool {
  /** Free blocks by size (powers of two). */
  private readonly free = new Map<number, ArrayBuffer[]>();
  private readonly mine = new WeakSet<ArrayBuffer>();
  private freeBytes = 0;

  /** @param maxFreeBytes bytes of free blocks kept at most; more are left to the collector */
  constructor(private readonly maxFreeBytes = 64 * 1024 * 1024) {}

  /** A buffer of exactly `size` bytes, of unspecified content. */
  take(size: number): Buffer {
    const block = blockSize(size);
    const ready = this.free.get(block)?.pop();
    if (ready) {
      this.freeBytes -= block;
      return Buffer.from(ready, 0, size);
    }
    const fresh = new ArrayBuffer(block);
    this.mine.add(fresh);
    return Buffer.from(fresh, 0, size);
  }

  /** Gives back a buffer from `take`; nothing may read or write it afterwards. */
  give(body: Buffer): void {
    const block = body.buffer;
    if (!(block instanceof ArrayBuffer) || !this.mine.has(block)) return;
    if (this.freeBytes + block.byteLength > this.maxFreeBytes) return;
    let list = this.free.get(block.byteLength);
    if (!list) this.free.set(block.byteLength, (list = []));
    list.push(block);
    this.freeBytes += block.byteLength;
  }

  /** Bytes in free blocks (for tests). */
  get idleBytes(): number {
    return this.freeBytes;
  }
}

const MIN_BLOCK = 16 * 1024;

function blockSize(size: number): number {
  let block = MIN_BLOCK;
  while (block < size) block *= 2;
  return block;
}

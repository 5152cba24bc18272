import { once } from 'node:events';
import { createWriteStream, mkdirSync, renameSync, rmSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { OutputFileError } from '../errors.js';

/**
 * Writes lines to a file through a write stream, waiting for `drain` when the stream's buffer is
 * full (backpressure), so memory stays flat however many lines there are. It writes to
 * `<file>.partial` and renames on `close()`: a failed export never leaves a half-written file
 * that looks complete.
 */
export class JsonlWriter {
  private readonly stream: WriteStream;
  private readonly partial: string;
  private failure: Error | null = null;
  lines = 0;

  private constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.partial = `${file}.partial`;
    this.stream = createWriteStream(this.partial, { encoding: 'utf8' });
    this.stream.on('error', (err) => {
      this.failure = err;
    });
  }

  static async open(file: string): Promise<JsonlWriter> {
    try {
      const w = new JsonlWriter(file);
      await once(w.stream, 'open');
      return w;
    } catch (err) {
      throw OutputFileError.of(file, err);
    }
  }

  /** Writes one JSON value as a line. */
  async write(value: unknown): Promise<void> {
    if (this.failure) throw OutputFileError.of(this.file, this.failure);
    this.lines++;
    if (!this.stream.write(`${JSON.stringify(value)}\n`)) await this.drained();
  }

  /** Flushes, closes and moves the file into place. */
  async close(): Promise<void> {
    this.stream.end();
    await once(this.stream, 'close').catch(() => undefined);
    if (this.failure) throw OutputFileError.of(this.file, this.failure);
    try {
      renameSync(this.partial, this.file);
    } catch (err) {
      throw OutputFileError.of(this.file, err);
    }
  }

  /**
   * Waits for the buffer to empty; a write error (a full disk) ends the wait too. The wait that
   * loses the race is cancelled, so a long export does not pile up listeners on the stream.
   */
  private async drained(): Promise<void> {
    const done = new AbortController();
    const { signal } = done;
    await Promise.race([
      once(this.stream, 'drain', { signal }),
      once(this.stream, 'close', { signal }),
    ]).catch(() => undefined);
    done.abort();
    if (this.failure) throw OutputFileError.of(this.file, this.failure);
  }

  /** Closes and deletes the partial file (on error). */
  async abort(): Promise<void> {
    if (!this.stream.closed) {
      this.stream.destroy();
      await once(this.stream, 'close').catch(() => undefined);
    }
    rmSync(this.partial, { force: true });
  }
}

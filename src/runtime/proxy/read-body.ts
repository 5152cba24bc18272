import type { IncomingMessage } from 'node:http';

export type ReadBody = { ok: true; body: Buffer } | { ok: false; bytes: number };

/**
 * The request body, or `ok: false` as soon as it is known to be over `maxBytes`: from its
 * Content-Length before a byte is read, or, for a chunked body, at the chunk that crosses the
 * limit. Then reading stops there (the stream is paused, nothing more is kept): a 30 MB body
 * must cost neither 30 MB of memory nor the time to receive it (issue #60).
 */
export async function readBodyWithin(req: IncomingMessage, maxBytes: number): Promise<ReadBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return { ok: false, bytes: declared };
  return new Promise<ReadBody>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const done = (result: ReadBody) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', reject);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        req.pause();
        chunks.length = 0;
        done({ ok: false, bytes });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => done({ ok: true, body: Buffer.concat(chunks) });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

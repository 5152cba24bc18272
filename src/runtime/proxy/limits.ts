/**
 * The limits that keep `acon proxy` answering under load (issue #60): one oversized or slow
 * request must not stall the others, and a stop must not wait forever. Each default is the safe
 * choice for one agent host; `acon proxy --help` and docs/reliability.md state them.
 */
export type ProxyLimits = {
  /**
   * Largest request body read, in bytes; over it the answer is 413 and no more is read. 32 MB:
   * a 1M-token context is about 4-5 MB of JSON, and a request may carry a few base64 images
   * (20 MB is the largest image the OpenAI API takes), so a real agent request fits with room.
   */
  maxBodyBytes: number;
  /**
   * Largest body acon compresses, in bytes; a larger one goes upstream uncompressed with a log
   * line. Tokenizing is synchronous, about 0.4 s of the event loop per MB of JSON (o200k,
   * measured on apptown-like pages), and a compression counts its input several times: at 2 MB
   * (about 500k tokens, more than a compressor model reads) one request holds every other for
   * a few seconds at most.
   */
  maxCompressBytes: number;
  /** Requests in flight; one more is answered 503 with Retry-After. */
  maxInflight: number;
  /** Compressions running at once (each may call a compressor model); the rest wait their turn. */
  maxCompressions: number;
  /**
   * Time a request may spend waiting for and running its compression, in ms; after it the
   * request goes upstream uncompressed and the log says so. The compression goes on and its
   * answers are cached for the conversation's next request.
   */
  compressionDeadlineMs: number;
};

const MB = 1024 * 1024;

export const PROXY_LIMIT_DEFAULTS: ProxyLimits = {
  maxBodyBytes: 32 * MB,
  maxCompressBytes: 2 * MB,
  maxInflight: 256,
  maxCompressions: 16,
  compressionDeadlineMs: 30_000,
};

/** Seconds the proxy gives the requests in flight to finish after SIGTERM or SIGINT. */
export const DEFAULT_SHUTDOWN_GRACE_S = 10;

/** `33554432` → `32 MB`, `4096` → `4096 bytes`, for messages. */
export function megabytes(bytes: number): string {
  if (bytes < MB / 100) return `${bytes} bytes`;
  return `${Number((bytes / MB).toFixed(2))} MB`;
}

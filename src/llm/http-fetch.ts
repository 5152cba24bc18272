import { Agent, type Dispatcher } from 'undici';

/**
 * The `fetch` the OpenAI provider hands to the `openai` client: one request through an undici
 * Agent (keep-alive connection pools per origin, no limit on connections), the answer read
 * whole.
 *
 * Node's built-in fetch runs every request and response through web streams, and node:http
 * through its own streams and socket bookkeeping; at 64 calls in flight each cost a sizeable
 * share of what acon may spend per call to keep the model busy (issue #16 and #28,
 * `npm run bench:throughput`). Chat completions are one JSON document each way, so nothing
 * here streams: the request goes to undici's dispatcher as ready bytes and the answer is
 * collected chunk by chunk. Redirects are not followed and bodies are not decompressed: no
 * Accept-Encoding is sent, and an API answers a POST in place. undici's own header and body
 * timeouts are off: the `openai` client's timeout (`timeout_ms`) is the only one.
 */
export function createHttpFetch(): typeof fetch {
  const agent = new Agent({ connections: null, headersTimeout: 0, bodyTimeout: 0 });
  return ((input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return Promise.reject(new TypeError(`unsupported protocol ${url.protocol} in ${url.href}`));
    }
    const headers: string[] = [];
    const given = init?.headers;
    // The openai client passes a Headers; copying it into another first costs as much again.
    (given instanceof Headers ? given : new Headers(given)).forEach((value, name) =>
      headers.push(name, value),
    );
    const body = init?.body ?? undefined;
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      return Promise.reject(new TypeError('createHttpFetch sends string or byte bodies only'));
    }
    const request: Dispatcher.DispatchOptions = {
      origin: url.origin,
      path: url.pathname + url.search,
      method: (init?.method ?? 'GET') as Dispatcher.HttpMethod,
      headers,
      body: body ?? null,
    };
    return send(agent, request, init?.signal ?? undefined, 1);
  }) as typeof fetch;
}

/** Errors of a connection that broke before any answer: the socket was closed or reset. */
const BROKEN = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

function send(
  agent: Agent,
  request: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
  retriesOnStaleSocket: number,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    let status = 0;
    let statusText = '';
    let rawHeaders: Buffer[] = [];
    const chunks: Buffer[] = [];
    let cancel: ((reason: Error) => void) | null = null;
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      cancel?.(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    agent.dispatch(request, {
      onConnect(abort) {
        cancel = abort;
        if (aborted) abort(abortError());
      },
      onHeaders(statusCode, headers, _resume, statusMessage) {
        status = statusCode;
        statusText = statusMessage ?? '';
        rawHeaders = headers as Buffer[];
        return true;
      },
      onData(chunk) {
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        settle();
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        // undici gives the connection back one event-loop turn after the answer (it makes sure
        // the server keeps it open), so a request sent in the same turn takes another idle
        // connection (or opens one). Handing the answer over only after that turn kept the
        // connection count lower but added milliseconds to every call at 64 in flight.
        resolve(toResponse(status, statusText, rawHeaders, bytes));
      },
      onError(err: Error & { code?: string; socket?: { bytesRead?: number } }) {
        settle();
        if (aborted || signal?.aborted) {
          reject(abortError());
          return;
        }
        // A kept-alive connection the server closed while it sat idle fails on reuse before
        // any answer (it had read earlier answers); sending again on a fresh one is what
        // Node's documentation advises.
        const stale =
          status === 0 && BROKEN.has(err.code ?? '') && (err.socket?.bytesRead ?? 0) > 0;
        if (stale && retriesOnStaleSocket > 0) {
          send(agent, request, signal, retriesOnStaleSocket - 1).then(resolve, reject);
        } else {
          reject(err);
        }
      },
      onUpgrade() {},
    });
  });
}

/** Like fetch: a cancelled request rejects with an AbortError (the client's timeout too). */
function abortError(): DOMException {
  return new DOMException('the request was aborted', 'AbortError');
}

/** Statuses whose Response may not carry a body (the Fetch standard's "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function toResponse(
  status: number,
  statusText: string,
  raw: readonly Buffer[],
  bytes: Buffer,
): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    headers.append(raw[i]!.toString('latin1'), raw[i + 1]!.toString('latin1'));
  }
  const init = { status, statusText, headers };
  return NULL_BODY.has(status) ? new Response(null, init) : new WholeResponse(bytes, init);
}

/**
 * A Response over an answer already read whole. Node's Response wraps any body in a web stream
 * and `json()` reads it back through that stream; the `openai` client reads every answer with
 * `json()`, so at 64 calls in flight that cost a few percent of acon's time per call
 * (issue #16). Here `json()`, `text()` and `arrayBuffer()` decode the bytes directly; `body`
 * is a stream made when first asked for. A body is read once, as with fetch.
 */
export class WholeResponse extends Response {
  readonly #bytes: Buffer;
  #used = false;
  #stream: ReadableStream<Uint8Array> | null = null;

  constructor(bytes: Buffer, init: ResponseInit) {
    super(null, init);
    this.#bytes = bytes;
  }

  #take(): Promise<Buffer> {
    if (this.#used || this.#stream) {
      return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    }
    this.#used = true;
    return Promise.resolve(this.#bytes);
  }

  // Response declares these as properties, so they are put on the prototype here rather than
  // written as methods and accessors (which TypeScript rejects as overrides of properties).
  static {
    Object.defineProperties(WholeResponse.prototype, {
      body: {
        get(this: WholeResponse) {
          return (this.#stream ??= new Response(this.#bytes).body);
        },
      },
      bodyUsed: {
        get(this: WholeResponse) {
          return this.#used;
        },
      },
      json: {
        value(this: WholeResponse) {
          return this.#take().then((b) => JSON.parse(b.toString('utf8')) as unknown);
        },
      },
      text: {
        value(this: WholeResponse) {
          return this.#take().then((b) => b.toString('utf8'));
        },
      },
      arrayBuffer: {
        value(this: WholeResponse) {
          return this.#take().then((b) => new Uint8Array(b).buffer);
        },
      },
      clone: {
        value(this: WholeResponse) {
          if (this.#used) throw new TypeError('Response.clone: Body has already been consumed.');
          const { status, statusText, headers } = this;
          return new WholeResponse(this.#bytes, {
            status,
            statusText,
            headers: new Headers(headers),
          });
        },
      },
    });
  }
}

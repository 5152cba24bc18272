import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * The `fetch` the OpenAI provider hands to the `openai` client: one request over node:http(s)
 * with keep-alive agents whose sockets are not limited per host, the answer read whole.
 *
 * Node's built-in fetch runs every request and response through web streams; at 64 calls in
 * flight that cost about 0.3 ms of event-loop time per call, a fifth of what acon may spend
 * per call to keep the model busy (issue #16, `npm run bench:throughput`). Chat completions
 * are one JSON document each way, so nothing here streams. Redirects are not followed and
 * bodies are not decompressed: no Accept-Encoding is sent, and an API answers a POST in place.
 */
export function createHttpFetch(): typeof fetch {
  const agents = {
    'http:': new HttpAgent({ keepAlive: true }),
    'https:': new HttpsAgent({ keepAlive: true }),
  };
  return ((input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const agent = agents[url.protocol as keyof typeof agents];
    if (!agent) {
      return Promise.reject(new TypeError(`unsupported protocol ${url.protocol} in ${url.href}`));
    }
    const headers: Record<string, string> = {};
    const given = init?.headers;
    // The openai client passes a Headers; copying it into another first costs as much again.
    (given instanceof Headers ? given : new Headers(given)).forEach(
      (value, name) => (headers[name] = value),
    );
    const body = init?.body ?? undefined;
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      return Promise.reject(new TypeError('createHttpFetch sends string or byte bodies only'));
    }
    return send(url, init?.method ?? 'GET', headers, body, agent, init?.signal ?? undefined, 1);
  }) as typeof fetch;
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  agent: HttpAgent,
  signal: AbortSignal | undefined,
  retriesOnStaleSocket: number,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, { method, headers, agent, signal }, (res) => {
      readAll(res, signal).then((bytes) => resolve(toResponse(res, bytes)), reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed while it sat idle fails on reuse before any
      // answer; Node's documentation advises sending again on a fresh one.
      const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      if (stale && retriesOnStaleSocket > 0 && !signal?.aborted) {
        send(url, method, headers, body, agent, signal, retriesOnStaleSocket - 1).then(
          resolve,
          reject,
        );
      } else {
        reject(err);
      }
    });
    req.end(body);
  });
}

function readAll(res: IncomingMessage, signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    res.on('error', reject);
    res.on('close', () => {
      if (res.complete) return;
      // Like fetch: a cancelled request rejects with an AbortError (the client's timeout too).
      reject(
        signal?.aborted
          ? new DOMException('the request was aborted', 'AbortError')
          : new Error('the server closed the connection before the answer was complete'),
      );
    });
  });
}

/** Statuses whose Response may not carry a body (the Fetch standard's "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function toResponse(res: IncomingMessage, bytes: Buffer): Response {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const status = res.statusCode ?? 0;
  const init = { status, statusText: res.statusMessage ?? '', headers };
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

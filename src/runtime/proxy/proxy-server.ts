import { systemClock, type Clock } from '../../clock.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { applyPlan, type ContextCompressor } from '../context-compressor.js';
import type { OpenAiMessage } from '../openai-messages.js';
import { CompressionGate, isSkipped, type Skipped } from './compression-gate.js';
import { compressionHeader, formatReport, passthroughHeader } from './format-report.js';
import { megabytes, PROXY_LIMIT_DEFAULTS, type ProxyLimits } from './limits.js';
import { readBodyWithin } from './read-body.js';
import { COMPRESSION_HEADER, proxyResponses, RESPONSES_PATH } from './responses.js';
import type { ProxiedExchange } from './exchange.js';

export type ProxyOptions = {
  /** Base URL of the OpenAI-compatible upstream, e.g. `http://127.0.0.1:8000/v1`. */
  upstream: string;
  compressor: ContextCompressor;
  /** One line per request and per compressor failure; never headers or keys. */
  log: (line: string) => void;
  /** Called after each chat completion or compressed Responses request was answered (`--record`). */
  onExchange?: (exchange: ProxiedExchange) => void;
  /** Runs the compression of one request (`--record` attributes its compressor calls). */
  within?: <T>(messages: OpenAiMessage[], compress: () => Promise<T>) => Promise<T>;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Body size, requests and compressions in flight, compression deadline. @default PROXY_LIMIT_DEFAULTS */
  limits?: Partial<ProxyLimits>;
  /** @default the real setTimeout/clearTimeout */
  /** Timers, injected so tests decide when a deadline or a grace period ends. @default systemClock */
  timers?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
};

/** The fields of a chat-completions body the proxy reads; everything else passes as it is. */
const ChatBodySchema = z.looseObject({ messages: z.array(z.looseObject({ role: z.string() })) });

/** Request headers not forwarded: hop-by-hop, and those fetch sets itself. */
const DROP_REQUEST: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'accept-encoding',
  'upgrade',
  'proxy-connection',
]);
/** Response headers not passed back: fetch has already decoded and de-chunked the body. */
const DROP_RESPONSE: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'content-encoding',
]);

/** How long a refused upload's connection stays open for its client to read the 413. */
const REFUSED_LINGER_MS = 1_000;

const CHAT_PATH = /^(?:\/v1)?\/chat\/completions\/?$/;

/**
 * `acon proxy`: an OpenAI-compatible server that applies ACON to every chat-completions request
 * and forwards it upstream, so an agent in any language gets learned compression by changing
 * its base URL. The client's headers, its `Authorization` with them, go upstream as they came and
 * are never logged or stored; the answer (a stream or not, an error or not) comes back as the
 * upstream sent it, with an `x-acon-compression` header saying what was done. A compressor
 * failure sends the request uncompressed. `POST /v1/responses` is compressed by responses.ts;
 * other routes are forwarded unchanged.
 */
export class ProxyServer {
  readonly server: Server;
  private readonly upstream: string;
  private readonly fetch: typeof fetch;
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private readonly limits: ProxyLimits;
  private readonly timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  private readonly gate: CompressionGate;
  /** Set by close(): new requests are refused, answers close their connection. */
  private closing = false;
  /** Aborts the upstream requests in flight when the shutdown grace runs out. */
  private readonly stopAll = new AbortController();

  constructor(private readonly opts: ProxyOptions) {
    this.upstream = opts.upstream.replace(/\/+$/, '');
    this.fetch = opts.fetch ?? globalThis.fetch;
    this.limits = { ...PROXY_LIMIT_DEFAULTS, ...opts.limits };
    this.timers = opts.timers ?? systemClock;
    this.gate = new CompressionGate(this.limits, this.timers);
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  /** Requests being answered now. */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  async listen(port: number, host: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    const address = this.server.address() as AddressInfo;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/v1`;
  }

  /**
   * Stops accepting at once (the listening socket and idle keep-alive connections are closed, a
   * request arriving on a busy connection is answered 503), lets the requests in flight finish
   * for `graceMs`, then aborts the ones left and closes every connection. Resolves with how many
   * were aborted.
   * @default graceMs no limit: wait for every answer
   */
  async close(graceMs = Number.POSITIVE_INFINITY): Promise<{ aborted: number }> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    let aborted = 0;
    if (this.inFlight > 0) {
      let timer: unknown;
      const drained = new Promise<boolean>((resolve) => this.idle.push(() => resolve(true)));
      const expired = Number.isFinite(graceMs)
        ? new Promise<boolean>(
            (resolve) => (timer = this.timers.setTimeout(() => resolve(false), graceMs)),
          )
        : new Promise<boolean>(() => {});
      const finished = await Promise.race([drained, expired]);
      this.timers.clearTimeout(timer);
      if (!finished) {
        aborted = this.inFlight;
        this.stopAll.abort();
      }
    }
    this.server.closeAllConnections();
    await closed;
    return { aborted };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.closing) {
      this.refuse(
        res,
        503,
        'acon proxy is shutting down; retry against its restart',
        'unavailable',
      );
      return;
    }
    if (this.inFlight >= this.limits.maxInflight) {
      this.refuse(
        res,
        503,
        `acon proxy has ${this.limits.maxInflight} requests in flight (--max-inflight); retry after the Retry-After seconds`,
        'overloaded',
      );
      return;
    }
    this.inFlight++;
    try {
      const read = await readBodyWithin(req, this.limits.maxBodyBytes);
      if (!read.ok) {
        this.opts.log(
          `${req.method ?? 'GET'} ${req.url ?? '/'} 413 body over ${megabytes(this.limits.maxBodyBytes)} (--max-body-mb), not read`,
        );
        this.refuseUnread(
          req,
          `request body is larger than the ${megabytes(this.limits.maxBodyBytes)} acon proxy accepts (--max-body-mb)`,
        );
        return;
      }
      const raw = read.body;
      const path = (req.url ?? '/').replace(/^\/v1(?=\/|$)/, '') || '/';
      const target = `${this.upstream}${path}`;
      if (req.method === 'POST' && CHAT_PATH.test((req.url ?? '').split('?')[0]!)) {
        await this.chat(req, res, raw, target);
      } else if (req.method === 'POST' && RESPONSES_PATH.test((req.url ?? '').split('?')[0]!)) {
        await proxyResponses(this.responsesContext(), req, res, raw, target);
      } else {
        await this.forward(req, res, raw.length > 0 ? raw : undefined, target);
      }
    } catch (err) {
      this.opts.log(`proxy error: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) {
        sendJson(res, 502, {
          error: { message: 'acon proxy: the upstream could not be reached', type: 'proxy_error' },
        });
      } else res.destroy();
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) for (const done of this.idle.splice(0)) done();
    }
  }

  /**
   * An OpenAI-style error answer (`{"error":{"message","type","param","code"}}`) that closes its
   * connection: the body may be unread, and a closing proxy keeps no connection open.
   */
  private refuse(
    res: ServerResponse,
    status: number,
    message: string,
    code: string,
    type = 'server_error',
  ): void {
    res.shouldKeepAlive = false;
    res.writeHead(status, {
      'content-type': 'application/json',
      connection: 'close',
      ...(status === 503 ? { 'retry-after': '1' } : {}),
    });
    res.end(JSON.stringify({ error: { message, type, param: null, code } }));
  }

  /**
   * The 413 of a body that is not read: written on the socket, which then sends no more and is
   * closed after a short linger. Node's own answer path would read (and drop) the rest of the
   * body to keep the connection, or reset it at once; a reset while the client still uploads
   * loses the answer on its side (EPIPE before the 413 is read). Not reading stops the upload
   * by TCP flow control, so the body costs neither memory nor time, and the client reads the
   * 413 before the connection goes.
   */
  private refuseUnread(req: IncomingMessage, message: string): void {
    const body = JSON.stringify({
      error: { message, type: 'invalid_request_error', param: null, code: 'request_too_large' },
    });
    const socket = req.socket;
    socket.end(
      `HTTP/1.1 413 Payload Too Large\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    const timer = this.timers.setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
    socket.once('close', () => this.timers.clearTimeout(timer));
  }

  /** The plan for `messages`, through the compression bounds (compression-gate.ts). */
  private async compress<T>(
    messages: OpenAiMessage[],
    plan: () => Promise<T>,
  ): Promise<T | Skipped> {
    const within = this.opts.within;
    return this.gate.run(() => (within ? within(messages, plan) : plan()));
  }

  private async chat(req: IncomingMessage, res: ServerResponse, raw: Buffer, target: string) {
    const tooLarge = this.gate.tooLarge(raw.length);
    if (tooLarge) {
      await this.passThrough(req, res, raw, target, tooLarge);
      return;
    }
    let parsed: z.infer<typeof ChatBodySchema>;
    try {
      parsed = ChatBodySchema.parse(JSON.parse(raw.toString('utf8')));
    } catch {
      // Not a body we understand: the upstream says what is wrong with it.
      await this.forward(req, res, raw, target);
      return;
    }
    const messages = parsed.messages as unknown as OpenAiMessage[];
    const plan = await this.compress(messages, () => this.opts.compressor.plan(messages));
    if (isSkipped(plan)) {
      await this.passThrough(req, res, raw, target, plan);
      return;
    }
    const { report } = plan;
    if (report.error) {
      this.opts.log(`compressor failed, request sent uncompressed: ${report.error.message}`);
    }
    const body = { ...parsed, messages: applyPlan(messages, plan) };
    const streamed = parsed.stream === true;
    const answer = await this.forward(req, res, Buffer.from(JSON.stringify(body)), target, {
      [COMPRESSION_HEADER]: compressionHeader(report),
    });
    this.opts.log(`POST /v1/chat/completions ${answer.status} ${formatReport(report)}`);
    this.opts.onExchange?.({
      api: 'chat',
      original: messages,
      sent: body.messages,
      body,
      report,
      status: answer.status,
      answer: answer.text,
      streamed,
    });
  }

  /** A chat request sent upstream as it came, with the log line that says why. */
  private async passThrough(
    req: IncomingMessage,
    res: ServerResponse,
    raw: Buffer,
    target: string,
    why: Skipped,
  ): Promise<void> {
    const answer = await this.forward(req, res, raw, target, {
      [COMPRESSION_HEADER]: passthroughHeader(why.code),
    });
    this.opts.log(`POST /v1/chat/completions ${answer.status} sent uncompressed: ${why.text}`);
  }

  /** The server's parts the Responses route (responses.ts) uses. */
  private responsesContext() {
    return {
      compressor: this.opts.compressor,
      log: this.opts.log,
      compress: this.compress.bind(this),
      tooLarge: (bytes: number) => this.gate.tooLarge(bytes),
      forward: this.forward.bind(this),
      ...(this.opts.onExchange ? { onExchange: this.opts.onExchange } : {}),
    };
  }

  /** Sends the request upstream and pipes the answer back as it arrives. */
  private async forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer | undefined,
    target: string,
    extra: Record<string, string> = {},
  ): Promise<{ status: number; text: string }> {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || DROP_REQUEST.has(name)) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const signal = AbortSignal.any([abort.signal, this.stopAll.signal]);
    const upstream = await this.fetch(target, {
      method: req.method ?? 'GET',
      headers,
      signal,
      ...(body !== undefined && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}),
    });
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!DROP_RESPONSE.has(name)) out[name] = value;
    });
    // A closing proxy keeps no connection open after this answer.
    if (this.closing) res.shouldKeepAlive = false;
    res.writeHead(upstream.status, { ...out, ...extra });
    const chunks: Buffer[] = [];
    if (upstream.body) {
      for await (const chunk of upstream.body) {
        const buf = Buffer.from(chunk);
        chunks.push(buf);
        res.write(buf);
      }
    }
    res.end();
    return { status: upstream.status, text: Buffer.concat(chunks).toString('utf8') };
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  applyPlan,
  type CompressionReport,
  type ContextCompressor,
} from '../context-compressor.js';
import type { OpenAiMessage } from '../openai-messages.js';
import { compressionHeader, formatReport } from './format-report.js';
import { COMPRESSION_HEADER, proxyResponses, RESPONSES_PATH } from './responses.js';

/** One proxied chat completion, for `--record`: the request as sent upstream and the answer. */
export type ProxiedExchange = {
  /** The messages as the client sent them (uncompressed). */
  original: OpenAiMessage[];
  /** The body sent upstream (messages compressed). */
  body: Record<string, unknown>;
  /** What the compression of this request did. */
  report: CompressionReport;
  status: number;
  /** The answer body (for a stream, the raw event stream). */
  answer: string;
  streamed: boolean;
};

export type ProxyOptions = {
  /** Base URL of the OpenAI-compatible upstream, e.g. `http://127.0.0.1:8000/v1`. */
  upstream: string;
  compressor: ContextCompressor;
  /** One line per request and per compressor failure; never headers or keys. */
  log: (line: string) => void;
  /** Called after each chat completion was answered (`--record`). */
  onExchange?: (exchange: ProxiedExchange) => void;
  /** Runs the compression of one request (`--record` attributes its compressor calls). */
  within?: <T>(messages: OpenAiMessage[], compress: () => Promise<T>) => Promise<T>;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
};

/** The fields of a chat-completions body the proxy reads; everything else passes as it is. */
const ChatBodySchema = z.looseObject({ messages: z.array(z.looseObject({ role: z.string() })) });

/** Request headers not forwarded: hop-by-hop, and those fetch sets itself. */
const DROP_REQUEST = new Set([
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
const DROP_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'content-encoding',
]);

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

  constructor(private readonly opts: ProxyOptions) {
    this.upstream = opts.upstream.replace(/\/+$/, '');
    this.fetch = opts.fetch ?? globalThis.fetch;
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async listen(port: number, host: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    const address = this.server.address() as AddressInfo;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/v1`;
  }

  /** Stops accepting connections and resolves once the requests in flight are answered. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight++;
    try {
      const raw = await readBody(req);
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

  private async chat(req: IncomingMessage, res: ServerResponse, raw: Buffer, target: string) {
    let parsed: z.infer<typeof ChatBodySchema>;
    try {
      parsed = ChatBodySchema.parse(JSON.parse(raw.toString('utf8')));
    } catch {
      // Not a body we understand: the upstream says what is wrong with it.
      await this.forward(req, res, raw, target);
      return;
    }
    const messages = parsed.messages as unknown as OpenAiMessage[];
    const compress = () => this.opts.compressor.plan(messages);
    const plan = await (this.opts.within ? this.opts.within(messages, compress) : compress());
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
      original: messages,
      body,
      report,
      status: answer.status,
      answer: answer.text,
      streamed,
    });
  }

  /** The server's parts the Responses route (responses.ts) uses. */
  private responsesContext() {
    return {
      compressor: this.opts.compressor,
      log: this.opts.log,
      ...(this.opts.within ? { within: this.opts.within } : {}),
      forward: this.forward.bind(this),
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
    const upstream = await this.fetch(target, {
      method: req.method ?? 'GET',
      headers,
      signal: abort.signal,
      ...(body !== undefined && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}),
    });
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!DROP_RESPONSE.has(name)) out[name] = value;
    });
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

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

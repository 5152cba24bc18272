import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompressionPlan, ContextCompressor } from '../src/runtime/context-compressor.js';
import type { Clock } from '../src/clock.js';
import type { ProxyLimits } from '../src/runtime/proxy/limits.js';
import { ProxyServer } from '../src/runtime/proxy/proxy-server.js';
import { listenOnLoopback } from './helpers/loopback.js';

/**
 * The bounds of `acon proxy` one by one (issue #60), in process with injected timers: a chunked
 * body over --max-body-mb, a request over --max-inflight, a compression past its deadline, a body
 * too large to compress, and a shutdown whose grace runs out. The load test
 * (proxy-load.test.ts) runs them together through the CLI.
 */

/** Timers a test fires by hand; `whenSet(ms)` resolves once a timer of that length is set. */
class ManualTimers implements Pick<Clock, 'setTimeout' | 'clearTimeout'> {
  private next = 1;
  private readonly pending = new Map<number, { fn: () => void; ms: number }>();
  private readonly waiting: { ms: number; resolve: () => void }[] = [];

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { fn, ms });
    for (const w of this.waiting.filter((x) => x.ms === ms)) w.resolve();
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  whenSet(ms: number): Promise<void> {
    if ([...this.pending.values()].some((t) => t.ms === ms)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ ms, resolve }));
  }

  fire(ms: number): void {
    for (const [id, t] of [...this.pending]) {
      if (t.ms !== ms) continue;
      this.pending.delete(id);
      t.fn();
    }
  }
}

/** A compressor that changes nothing, or waits for `gate` first. */
function fakeCompressor(gate?: Promise<void>): ContextCompressor & { calls: number } {
  const c = {
    calls: 0,
    async plan(messages: readonly unknown[]): Promise<CompressionPlan> {
      c.calls++;
      await gate;
      return {
        headEnd: messages.length,
        firstKept: messages.length,
        summary: null,
        replaced: new Map(),
        report: {
          events: [],
          tokensBefore: 0,
          tokensAfter: 0,
          simulated: true,
          tokenizer: 'o200k',
        },
      };
    },
    compress: () => Promise.reject(new Error('not used')),
    fold: () => Promise.reject(new Error('not used')),
  };
  return c as ContextCompressor & { calls: number };
}

type Upstream = { url: string; bodies: string[]; release(): void; received: Promise<void> };

let servers: Server[] = [];
let proxies: ProxyServer[] = [];
afterEach(async () => {
  for (const p of proxies) p.server.closeAllConnections();
  for (const s of [...servers, ...proxies.map((p) => p.server)]) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  servers = [];
  proxies = [];
});

/** An upstream that answers once released (`hold`), or at once. */
async function upstream(hold = false): Promise<Upstream> {
  let release!: () => void;
  const released = hold ? new Promise<void>((r) => (release = r)) : Promise.resolve();
  let got!: () => void;
  const received = new Promise<void>((r) => (got = r));
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      got();
      void released.then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"}}]}');
      });
    });
  });
  servers.push(server);
  const port = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${port}/v1`, bodies, release: () => release?.(), received };
}

async function proxy(
  up: Upstream,
  opts: {
    limits?: Partial<ProxyLimits>;
    timers?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
    compressor?: ContextCompressor;
  },
  log: string[] = [],
): Promise<{ server: ProxyServer; url: string }> {
  const server = new ProxyServer({
    upstream: up.url,
    compressor: opts.compressor ?? fakeCompressor(),
    log: (line) => log.push(line),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.timers ? { timers: opts.timers } : {}),
  });
  proxies.push(server);
  return { server, url: await server.listen(0, '127.0.0.1') };
}

type Answer = { status: number; headers: IncomingMessage['headers']; text: string };

/** POSTs a chat body (`chunked`: without Content-Length, in pieces). */
function post(url: string, body: string, chunked = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const req = request(
      `${url}/chat/completions`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(chunked ? {} : { 'content-length': Buffer.byteLength(body) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        const done = () => {
          if (settled) return;
          settled = true;
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          });
        };
        res.on('end', done);
        res.on('error', done);
      },
    );
    req.on('error', (err) => {
      if (!settled) reject(err);
    });
    if (chunked) {
      for (let i = 0; i < body.length; i += 1024) req.write(body.slice(i, i + 1024));
      req.end();
    } else req.end(body);
  });
}

const CHAT = JSON.stringify({
  model: 'm',
  messages: [
    { role: 'system', content: 'agent' },
    { role: 'user', content: 'task' },
  ],
});

describe('acon proxy limits (issue #60)', () => {
  it('answers a chunked body over --max-body-mb with an OpenAI-style 413 and sends nothing upstream', async () => {
    const up = await upstream();
    const log: string[] = [];
    const { url } = await proxy(up, { limits: { maxBodyBytes: 4096 } }, log);
    const big = JSON.stringify({
      model: 'm',
      messages: [{ role: 'user', content: 'x'.repeat(64 * 1024) }],
    });
    const res = await post(url, big, true);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({
      error: {
        message: 'request body is larger than the 4096 bytes acon proxy accepts (--max-body-mb)',
        type: 'invalid_request_error',
        param: null,
        code: 'request_too_large',
      },
    });
    expect(up.bodies).toEqual([]);
    expect(log.join('\n')).toContain('413 body over');
    // Under the limit, the same proxy answers.
    expect((await post(url, CHAT)).status).toBe(200);
  });

  it('answers a request over --max-inflight 503 with Retry-After, and the others as usual', async () => {
    const up = await upstream(true);
    const { url, server } = await proxy(up, { limits: { maxInflight: 1 } });
    const first = post(url, CHAT);
    await up.received;
    expect(server.requestsInFlight).toBe(1);
    const over = await post(url, CHAT);
    expect(over.status).toBe(503);
    expect(over.headers['retry-after']).toBe('1');
    expect((JSON.parse(over.text) as { error: { code: string } }).error.code).toBe('overloaded');
    up.release();
    expect((await first).status).toBe(200);
  });

  it('sends a request uncompressed once --compression-deadline-s passes, saying why', async () => {
    const up = await upstream();
    const timers = new ManualTimers();
    const log: string[] = [];
    const never = new Promise<void>(() => {});
    const { url } = await proxy(
      up,
      { timers, compressor: fakeCompressor(never), limits: { compressionDeadlineMs: 30_000 } },
      log,
    );
    const answer = post(url, CHAT);
    await timers.whenSet(30_000);
    timers.fire(30_000);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.headers['x-acon-compression']).toBe('passthrough=deadline');
    expect(up.bodies).toEqual([CHAT]);
    expect(log).toContain(
      'POST /v1/chat/completions 200 sent uncompressed: compression did not finish within 30 s (--compression-deadline-s)',
    );
  });

  it('never tokenizes a body over --max-compress-mb: it goes upstream as it came', async () => {
    const up = await upstream();
    const compressor = fakeCompressor();
    const log: string[] = [];
    const { url } = await proxy(up, { compressor, limits: { maxCompressBytes: 64 } }, log);
    const res = await post(url, CHAT);
    expect(res.status).toBe(200);
    expect(res.headers['x-acon-compression']).toBe('passthrough=too_large');
    expect(compressor.calls).toBe(0);
    expect(log[0]).toMatch(
      /sent uncompressed: the body is \d+ bytes, over the 64 bytes acon compresses \(--max-compress-mb\)/,
    );
  });

  it('runs at most --max-compressions at once; the others wait their turn', async () => {
    const up = await upstream();
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const compressor = fakeCompressor(gate);
    const { url } = await proxy(up, { compressor, limits: { maxCompressions: 1 } });
    const answers = [post(url, CHAT), post(url, CHAT)];
    await new Promise<void>((resolve) => {
      const poll = () => (compressor.calls >= 1 ? resolve() : setImmediate(poll));
      poll();
    });
    expect(compressor.calls).toBe(1);
    open();
    expect((await Promise.all(answers)).map((a) => a.status)).toEqual([200, 200]);
    expect(compressor.calls).toBe(2);
  });

  it('on close stops accepting at once and aborts what is still in flight when the grace ends', async () => {
    const up = await upstream(true);
    const timers = new ManualTimers();
    const { url, server } = await proxy(up, { timers });
    const inFlight = post(url, CHAT).catch((err: Error) => err);
    await up.received;
    const closed = server.close(5_000);
    // Not accepting: a new connection is refused.
    await expect(post(url, CHAT)).rejects.toThrow(/ECONNREFUSED/);
    await timers.whenSet(5_000);
    timers.fire(5_000);
    expect(await closed).toEqual({ aborted: 1 });
    const lost = await inFlight;
    expect(lost instanceof Error || (lost as Answer).status >= 500).toBe(true);
  });

  it('on close lets a request in flight finish within the grace', async () => {
    const up = await upstream(true);
    const timers = new ManualTimers();
    const { url, server } = await proxy(up, { timers });
    const inFlight = post(url, CHAT);
    await up.received;
    const closed = server.close(5_000);
    up.release();
    expect((await inFlight).status).toBe(200);
    expect(await closed).toEqual({ aborted: 0 });
  });
});

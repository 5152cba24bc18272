import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFetch } from './http-fetch.js';

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

/** A 127.0.0.1 server; `handle` answers, `seen` lists requests, `sockets` the connections. */
async function serve(handle: (req: Seen, res: ServerResponse, nth: number) => void) {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const perSocket = new WeakMap<Socket, number>();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(r);
      const nth = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, nth);
      handle(r, res, nth);
    });
  });
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/chat/completions`, seen, sockets };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
  res.end(JSON.stringify(body));
};

describe('createHttpFetch', () => {
  it('sends method, headers and body, and returns status, headers and body', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, { ok: 'é' }));
    const res = await createHttpFetch()(url, {
      method: 'POST',
      headers: new Headers({ 'content-type': 'application/json', authorization: 'Bearer k' }),
      body: '{"model":"m"}',
    });
    expect(res.status).toBe(200);
    expect(res.ok).toBe(true);
    expect(res.headers.get('x-request-id')).toBe('req-1');
    expect(await res.json()).toEqual({ ok: 'é' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
    expect(seen[0]!.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: 'Bearer k',
    });
    expect(seen[0]!.body).toBe('{"model":"m"}');
  });

  it('returns error statuses as responses, and 204 without a body', async () => {
    const { url } = await serve((req, res) => {
      if (req.url.endsWith('empty')) {
        res.writeHead(204);
        res.end();
      } else json(res, 429, { error: { message: 'slow down' } });
    });
    const f = createHttpFetch();
    const limited = await f(url, { method: 'POST', body: '{}' });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: { message: 'slow down' } });
    const empty = await f(`${url}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('gives a body that reads once, in any of the ways a Response offers', async () => {
    const { url } = await serve((_req, res) => json(res, 200, { ok: 'é' }));
    const f = createHttpFetch();
    const get = () => f(url, { method: 'POST', body: '{}' });
    const first = await get();
    expect(first).toBeInstanceOf(Response);
    expect(first.bodyUsed).toBe(false);
    const copy = first.clone();
    expect(await first.text()).toBe('{"ok":"é"}');
    expect(first.bodyUsed).toBe(true);
    await expect(first.json()).rejects.toThrow(TypeError);
    expect(() => first.clone()).toThrow(TypeError);
    expect(await copy.json()).toEqual({ ok: 'é' });
    expect(new TextDecoder().decode(await (await get()).arrayBuffer())).toBe('{"ok":"é"}');
    // The stream is made only when asked for; after reading it, the body is used up.
    const streamed = await get();
    const bytes: Uint8Array[] = [];
    for await (const chunk of streamed.body!) bytes.push(chunk);
    expect(Buffer.concat(bytes).toString('utf8')).toBe('{"ok":"é"}');
    await expect(streamed.text()).rejects.toThrow(TypeError);
  });

  it('keeps the connection alive between requests', async () => {
    const { url, sockets } = await serve((_req, res) => json(res, 200, {}));
    const f = createHttpFetch();
    for (let i = 0; i < 3; i++) await (await f(url, { method: 'POST', body: '{}' })).json();
    expect(sockets.size).toBe(1);
  });

  it('sends again on a fresh connection when a kept-alive one was closed by the server', async () => {
    // The second request on a connection finds it closed, as after a server's idle timeout.
    const { url, seen, sockets } = await serve((_req, res, nth) => {
      if (nth === 2) res.socket!.destroy();
      else json(res, 200, { n: seen.length });
    });
    const f = createHttpFetch();
    await (await f(url, { method: 'POST', body: '{}' })).json();
    const again = await f(url, { method: 'POST', body: '{}' });
    expect(await again.json()).toEqual({ n: 3 });
    expect(sockets.size).toBe(2);
  });

  it('rejects with an AbortError when the signal aborts', async () => {
    const { url } = await serve(() => {}); // never answers
    const controller = new AbortController();
    const pending = createHttpFetch()(url, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects when nothing listens', async () => {
    const { url } = await serve(() => {});
    server!.close();
    server!.closeAllConnections();
    await new Promise((done) => setImmediate(done));
    await expect(createHttpFetch()(url, { method: 'POST', body: '{}' })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});

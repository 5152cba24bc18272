import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { runAcon, tempDir, type CliResult } from './helpers/cli.js';
import { listenOnLoopback } from './helpers/loopback.js';

/**
 * Issue #60, cases 1 and 2, as the campaign found them: one 30 MB chat request stalled
 * `acon proxy` for everyone (no answer within 90 s, 1.39 GB of memory), and SIGTERM did not stop
 * it. Here the proxy runs as the CLI does (`node bin/acon.js proxy`, a child of the test, on
 * loopback) in front of a fake upstream on 127.0.0.1, and gets 200 ordinary requests at once
 * plus 10 bodies of 30 MB (over its --max-body-mb 20) and 3 of 10 MB (under it, over
 * --max-compress-mb: forwarded uncompressed). Every ordinary request must be answered
 * within 10 s of the moment its upstream answered, every oversized one must get a 413, the
 * proxy's resident memory must grow by less than 300 MB, and SIGTERM must end it within its
 * shutdown grace. Bounded in count (210 requests) and time (the test's timeout); the waits are
 * for real sockets only.
 */

const ORDINARY = 200;
const OVERSIZED = 10;
const OVERSIZED_BYTES = 30 * 1024 * 1024;
const GRACE_S = 10;
/** Bodies under --max-body-mb but over --max-compress-mb: forwarded as they came. */
const LARGE = 3;
const LARGE_BYTES = 10 * 1024 * 1024;

let upstream: Server | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  upstream?.closeAllConnections();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  upstream = undefined;
});

/** A chat-completions upstream that answers at once and notes when it answered each request. */
async function fakeUpstream(answeredAt: Map<string, number>): Promise<string> {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { user?: string };
      const id = body.user ?? 'unknown';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${id}`,
          object: 'chat.completion',
          created: 0,
          model: 'fake',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: `ok ${id}` },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
        }),
      );
      answeredAt.set(id, performance.now() + performance.timeOrigin);
    });
  });
  const port = await listenOnLoopback(upstream);
  return `http://127.0.0.1:${port}/v1`;
}

/** An ordinary agent request; every tenth carries a tool result long enough to be compressed. */
function ordinaryBody(i: number): string {
  const id = `req-${i}`;
  const page = JSON.stringify(
    Array.from({ length: i % 10 === 0 ? 120 : 2 }, (_, k) => ({
      id: k,
      title: `Song number ${k}`,
      genre: ['jazz', 'rock', 'folk'][k % 3],
      play_count: 1000 + k * 13,
    })),
  );
  return JSON.stringify({
    model: 'fake',
    user: id,
    messages: [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: `Task ${id}: find the most played song.` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'songs', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: page },
    ],
  });
}

/** A 10 MB conversation (one huge tool result): too large to compress, small enough to pass. */
function largeBody(id: string): string {
  const body = JSON.parse(ordinaryBody(1)) as { user: string; messages: { content: unknown }[] };
  body.user = id;
  body.messages[3]!.content = 'x'.repeat(LARGE_BYTES);
  return JSON.stringify(body);
}

/** POSTs `body` and resolves with the status and when the whole answer had arrived. */
function post(url: string, body: Buffer): Promise<{ status: number; at: number; text: string }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const req = request(
      `${url}/chat/completions`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        const done = () => {
          if (settled) return;
          settled = true;
          resolve({
            status: res.statusCode ?? 0,
            at: performance.now() + performance.timeOrigin,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        };
        res.on('end', done);
        // A refused upload's connection is closed under it: the answer is what arrived.
        res.on('error', done);
        res.on('aborted', done);
      },
    );
    // Once answered, the rest of a refused body cannot be sent (EPIPE, ECONNRESET): expected.
    req.on('error', (err) => {
      if (!settled) reject(err);
    });
    req.end(body);
  });
}

/** The resident memory of a process, in bytes (Linux /proc). */
function rssBytes(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line![1]) * 1024;
}

describe('acon proxy under load (issue #60)', () => {
  it('answers 200 ordinary requests while refusing ten 30 MB bodies, stays under 300 MB more, and stops on SIGTERM', async () => {
    const answeredAt = new Map<string, number>();
    const upstreamUrl = await fakeUpstream(answeredAt);
    let stdout = '';
    let ready!: (url: string) => void;
    const listening = new Promise<string>((resolve) => (ready = resolve));
    const exited: Promise<CliResult> = runAcon(
      [
        'proxy',
        '--upstream',
        upstreamUrl,
        '--port',
        '0',
        '--max-body-mb',
        '20',
        '--shutdown-grace-s',
        String(GRACE_S),
      ],
      {
        cwd: tempDir(),
        onStdout: (d) => {
          stdout += d;
          const url = /listening on (\S+)/.exec(stdout)?.[1];
          if (url) ready(url);
        },
        onSpawn: (c) => (child = c),
      },
    );
    const url = await Promise.race([
      listening,
      exited.then((r) => Promise.reject(new Error(`proxy exited: ${r.stderr}`))),
    ]);
    const pid = child!.pid!;

    // One request first, so the baseline holds the loaded modules, not only node's start.
    expect((await post(url, Buffer.from(ordinaryBody(1_000)))).status).toBe(200);
    const baseline = rssBytes(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);

    const big = Buffer.alloc(OVERSIZED_BYTES, 'a');
    const oversized = Array.from({ length: OVERSIZED }, () => post(url, big));
    const large = Array.from({ length: LARGE }, (_, i) =>
      post(url, Buffer.from(largeBody(`large-${i}`))),
    );
    const ordinary = Array.from({ length: ORDINARY }, (_, i) =>
      post(url, Buffer.from(ordinaryBody(i))).then((r) => ({ ...r, id: `req-${i}` })),
    );
    const [refused, answered, forwarded] = await Promise.all([
      Promise.all(oversized),
      Promise.all(ordinary),
      Promise.all(large),
    ]);
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(pid));

    expect(refused.map((r) => r.status)).toEqual(Array(OVERSIZED).fill(413));
    for (const r of refused) {
      const body = JSON.parse(r.text) as { error: Record<string, unknown> };
      expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(body.error.code).toBe('request_too_large');
    }
    expect(answered.filter((r) => r.status !== 200)).toEqual([]);
    expect(forwarded.map((r) => r.status)).toEqual(Array(LARGE).fill(200));
    expect(forwarded.every((r, i) => r.text.includes(`ok large-${i}`))).toBe(true);
    const lateness = answered.map((r) => r.at - answeredAt.get(r.id)!);
    expect(Math.max(...lateness)).toBeLessThan(10_000);
    expect(answered.every((r) => r.text.includes(`ok ${r.id}`))).toBe(true);
    const growthMb = (peak - baseline) / 1024 / 1024;
    expect(growthMb).toBeLessThan(300);

    const signalled = performance.now();
    child!.kill('SIGTERM');
    const result = await exited;
    const tookMs = performance.now() - signalled;
    expect(result.code, result.stderr).toBe(0);
    expect(tookMs).toBeLessThan(GRACE_S * 1000);
    expect(result.stderr).toContain('acon proxy: stopped');
    console.log(
      `proxy load: rss ${Math.round(baseline / 1024 / 1024)} MB → peak ${Math.round(peak / 1024 / 1024)} MB (+${growthMb.toFixed(0)} MB); slowest answer ${Math.round(Math.max(...lateness))} ms after its upstream's; SIGTERM → exit ${Math.round(tookMs)} ms`,
    );
  }, 180_000);
});

import type { Clock } from '../../clock.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Readable } from 'node:stream';
import { BenchmarkError } from '../../errors.js';
import type { McpCallResult, McpTool } from './tools.js';

/** A server spec with its placeholders resolved (src/bench/mcp/placeholders.ts). */
export type ResolvedServer =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd: string }
  | { kind: 'http'; url: string; headers: Record<string, string> };

export type ConnectionOptions = {
  /** What a connection waits with; tests pass fake ones (no wall-clock waits in tests). */
  timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** Longest wait for the server to start and list its tools. */
  connectTimeoutMs: number;
  /** Longest wait for one tool call. */
  callTimeoutMs: number;
  /** Only these tools (MCP names) are offered; undefined: all. */
  allow?: readonly string[];
};

/** How much of a server's stderr is kept for error messages. */
const STDERR_TAIL = 2_000;

/**
 * A server that could not be used: it failed to start, stopped, or did not answer in time. It
 * names the server and carries the tail of its stderr (stdio servers).
 */
export class McpServerError extends BenchmarkError {
  override name = 'McpServerError';
  constructor(
    readonly server: string,
    readonly detail: string,
    readonly stderrTail: string,
    opts?: ErrorOptions,
  ) {
    // One line (the CLI prints errors as one line): the last 5 lines of stderr joined with " | ".
    const tail = stderrTail
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .slice(-5)
      .join(' | ');
    super(`MCP server "${server}" ${detail}${tail ? `; its stderr ends with: ${tail}` : ''}`, opts);
  }
}

/** The outcome of one tool call: a result for the agent, or a server that is gone. */
export type CallOutcome =
  { kind: 'result'; result: McpCallResult } | { kind: 'failed'; error: McpServerError };

/**
 * One session with one MCP server through the official SDK client: started (or reached) once per
 * rollout, closed at its end. A stdio server's stderr is kept (its tail explains a crash); a
 * server that exits makes every pending and later call fail at once instead of hanging, and a
 * call that outlives `callTimeoutMs` fails the same way.
 */
export class McpConnection {
  private stderr = '';
  private stderrDone: Promise<void> = Promise.resolve();
  private stopped = false;
  private closing = false;
  tools: McpTool[] = [];

  private constructor(
    readonly server: string,
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly opts: ConnectionOptions,
  ) {}

  static async open(
    server: string,
    spec: ResolvedServer,
    opts: ConnectionOptions,
  ): Promise<McpConnection> {
    const transport =
      spec.kind === 'stdio'
        ? new StdioClientTransport({
            command: spec.command,
            args: spec.args,
            env: spec.env,
            cwd: spec.cwd,
            stderr: 'pipe',
          })
        : new StreamableHTTPClientTransport(new URL(spec.url), {
            requestInit: { headers: spec.headers },
          });
    const client = new Client({ name: 'acon', version: '0.1.0' });
    const conn = new McpConnection(server, client, transport, opts);
    if (transport instanceof StdioClientTransport) conn.keepStderr(transport.stderr as Readable);
    client.onclose = () => {
      if (!conn.closing) conn.stopped = true;
    };
    client.onerror = () => {};
    const what = spec.kind === 'stdio' ? `${spec.command} ${spec.args.join(' ')}` : spec.url;
    // Every tool the server lists, before the task's allow-list: what a bad list is checked against.
    let offered: string[] = [];
    try {
      await conn.bounded(opts.connectTimeoutMs, 'did not start', async (signal) => {
        await client.connect(transport, { signal, timeout: opts.connectTimeoutMs });
        const tools: McpTool[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : {}, {
            signal,
            timeout: opts.connectTimeoutMs,
          });
          tools.push(...(page.tools as McpTool[]));
          cursor = page.nextCursor;
        } while (cursor);
        offered = tools.map((t) => t.name);
        conn.tools = opts.allow ? tools.filter((t) => opts.allow!.includes(t.name)) : tools;
      });
    } catch (err) {
      await conn.close();
      const failure =
        err instanceof McpServerError
          ? err
          : new McpServerError(
              server,
              `could not be started or reached (${what}): ${(err as Error).message}`,
              await conn.stderrTail(),
              { cause: err },
            );
      throw failure;
    }
    if (opts.allow) {
      const missing = opts.allow.filter((n) => !conn.tools.some((t) => t.name === n));
      if (missing.length > 0) {
        await conn.close();
        throw new McpServerError(
          server,
          `has no tool ${missing.join(', ')} (it has ${offered.join(', ') || 'none'}); fix the task's tools list`,
          '',
        );
      }
    }
    return conn;
  }

  /** Calls a tool; a server that stopped, or did not answer in time, is a failure. */
  async call(tool: string, args: Record<string, unknown>): Promise<CallOutcome> {
    if (this.stopped) {
      return { kind: 'failed', error: await this.failure('is not running (it stopped earlier)') };
    }
    try {
      const result = await this.bounded(
        this.opts.callTimeoutMs,
        `did not answer ${tool} within ${this.opts.callTimeoutMs} ms`,
        (signal) =>
          this.client.callTool({ name: tool, arguments: args }, undefined, {
            signal,
            timeout: this.opts.callTimeoutMs,
          }),
      );
      return { kind: 'result', result: result as McpCallResult };
    } catch (err) {
      if (err instanceof McpServerError) return { kind: 'failed', error: err };
      if (this.stopped) {
        return { kind: 'failed', error: await this.failure(`stopped while running ${tool}`, err) };
      }
      // A protocol-level error (unknown tool, invalid arguments): the agent can react to it.
      return {
        kind: 'result',
        result: { isError: true, content: [{ type: 'text', text: (err as Error).message }] },
      };
    }
  }

  /**
   * The last characters the server wrote to stderr, once the stream has drained (a dying
   * server's last words may arrive after its exit is noticed).
   */
  async stderrTail(): Promise<string> {
    await this.wait(this.stderrDone, 1_000);
    return this.stderr.trim();
  }

  /** Ends the session (a stdio server's process is stopped); never throws. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId) {
      await this.wait(
        this.transport.terminateSession().catch(() => {}),
        this.opts.connectTimeoutMs,
      );
    }
    await this.wait(
      this.client.close().catch(() => {}),
      this.opts.connectTimeoutMs,
    );
  }

  private keepStderr(stream: Readable | null): void {
    if (!stream) return;
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
    });
    this.stderrDone = new Promise((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', resolve);
    });
  }

  private async failure(detail: string, cause?: unknown): Promise<McpServerError> {
    return new McpServerError(this.server, detail, await this.stderrTail(), { cause });
  }

  /** Runs `work` with an abort signal; past `ms` it is aborted and the server counts as stuck. */
  private async bounded<T>(
    ms: number,
    detail: string,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const abort = new AbortController();
    let handle: unknown;
    const timeout = new Promise<never>((_, reject) => {
      handle = this.opts.timers.setTimeout(() => {
        this.stopped = true;
        // Settled before the abort, so the race ends with this error, not the SDK's AbortError.
        // A stuck server is still running: its stderr so far is all there is.
        reject(new McpServerError(this.server, detail, this.stderr.trim()));
        abort.abort();
      }, ms);
    });
    try {
      return await Promise.race([work(abort.signal), timeout]);
    } finally {
      this.opts.timers.clearTimeout(handle);
    }
  }

  /** Waits for `p`, at most `ms` (a stuck close or stream never holds a rollout). */
  private async wait(p: Promise<unknown>, ms: number): Promise<void> {
    let handle: unknown;
    await Promise.race([
      p,
      new Promise<void>((resolve) => (handle = this.opts.timers.setTimeout(resolve, ms))),
    ]);
    this.opts.timers.clearTimeout(handle);
  }
}

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { listenOnLoopback } from '../helpers/loopback.js';

/**
 * A streamable-HTTP MCP server for tests of `--bench mcp` (issue 26), on the official SDK's
 * server transport in stateful mode: one session per client, `lookup(key)` answers from a
 * small table (structured content only, no text). It records the headers it saw and the
 * sessions opened and ended.
 */
export class FakeMcpHttpServer {
  readonly opened: string[] = [];
  readonly ended: string[] = [];
  readonly authorization: (string | undefined)[] = [];
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();

  private constructor(
    private readonly http: HttpServer,
    readonly url: string,
  ) {}

  static async start(table: Record<string, unknown>): Promise<FakeMcpHttpServer> {
    const http = createServer();
    const port = await listenOnLoopback(http);
    const fake = new FakeMcpHttpServer(http, `http://127.0.0.1:${port}/mcp`);
    http.on('request', (req, res) => void fake.handle(req, res, table));
    return fake;
  }

  private async handle(
    req: IncomingMessage,
    res: Parameters<StreamableHTTPServerTransport['handleRequest']>[1],
    table: Record<string, unknown>,
  ): Promise<void> {
    this.authorization.push(req.headers.authorization);
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? this.sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          this.sessions.set(sid, transport!);
          this.opened.push(sid);
        },
        onsessionclosed: (sid) => {
          this.sessions.delete(sid);
          this.ended.push(sid);
        },
      });
      const server = new Server(
        { name: 'lookup', version: '1.0.0' },
        { capabilities: { tools: {} } },
      );
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          {
            name: 'lookup',
            description: 'Look a key up.',
            inputSchema: {
              type: 'object',
              properties: { key: { type: 'string' } },
              required: ['key'],
            },
          },
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (call) => {
        const key = String(call.params.arguments?.key);
        return key in table
          ? { content: [], structuredContent: { key, value: table[key] } }
          : { isError: true, content: [{ type: 'text', text: `no key ${key}` }] };
      });
      await server.connect(transport);
    }
    await transport.handleRequest(req, res);
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((t) => t.close()));
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}

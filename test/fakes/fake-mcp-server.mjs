#!/usr/bin/env node
// A small stdio MCP server for tests of `--bench mcp` (issue 26), built on the official SDK:
// `echo` answers, `die` writes to stderr and exits mid-call, `hang` never answers.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'fake', version: '1.0.0' }, { capabilities: { tools: {} } });
const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: 'echo', description: 'Echo the text back.', inputSchema: text },
    {
      name: 'die',
      description: 'Crash the server.',
      inputSchema: { type: 'object', properties: {} },
    },
    { name: 'hang', description: 'Never answer.', inputSchema: { type: 'object', properties: {} } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  switch (req.params.name) {
    case 'echo':
      return {
        content: [{ type: 'text', text: `echo: ${req.params.arguments?.text}` }],
        structuredContent: { echoed: req.params.arguments?.text },
      };
    case 'die':
      process.stderr.write('fake-mcp: fatal: the disk is on fire\n', () => process.exit(3));
      return new Promise(() => {});
    case 'hang':
      return new Promise(() => {});
    default:
      return { isError: true, content: [{ type: 'text', text: `no tool ${req.params.name}` }] };
  }
});
await server.connect(new StdioServerTransport());
process.stderr.write('fake-mcp: ready\n');

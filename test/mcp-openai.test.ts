import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcp } from '../src/bench/mcp/index.js';
import { runConditions } from '../src/experiment/run-conditions.js';
import { FakeOpenAiServer, reply, type FakeRequest } from './fakes/fake-openai-server.js';
import { tempDir } from './helpers/cli.js';
import { makeEnv } from './helpers/env.js';

const WRITE_DIR = fileURLToPath(new URL('./fixtures/mcp/write/', import.meta.url));

/** The filesystem server's own tool names (its installed source registers these). */
const FS_TOOLS = [
  'read_file',
  'read_text_file',
  'read_media_file',
  'read_multiple_files',
  'write_file',
  'edit_file',
  'create_directory',
  'list_directory',
  'list_directory_with_sizes',
  'directory_tree',
  'move_file',
  'search_files',
  'get_file_info',
  'list_allowed_directories',
];

describe('--bench mcp with an OpenAI-compatible model', () => {
  let server: FakeOpenAiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('offers the MCP servers’ tools and its tool calls change the rollout’s workdir through the real filesystem server', async () => {
    const tempRoot = tempDir('acon-mcp-oai-');
    /** The rollout's workdir as the model's later requests find it on disk. */
    const workdir = () => {
      const [rollout] = readdirSync(tempRoot).filter((n) => n.startsWith('acon-mcp-'));
      return rollout === undefined ? undefined : join(tempRoot, rollout, 'work');
    };
    const seenOnDisk: boolean[] = [];
    server = await FakeOpenAiServer.start({
      handler: (req: FakeRequest) => {
        const turn = (req.body?.messages ?? []).filter((m) => m.role === 'assistant').length;
        const dir = workdir();
        seenOnDisk.push(dir !== undefined && existsSync(join(dir, 'summary.txt')));
        switch (turn) {
          case 0:
            return reply.toolCalls([
              { name: 'fs__read_text_file', arguments: { path: 'notes/budget.md' } },
            ]);
          case 1:
            return reply.toolCalls([
              {
                name: 'fs__write_file',
                arguments: { path: 'summary.txt', content: 'Budget 4200' },
              },
            ]);
          default:
            return reply.toolCalls([{ name: 'complete_task', arguments: { answer: '4200' } }]);
        }
      },
    });
    const env = makeEnv({
      provider: 'openai',
      baseUrl: server.url,
      bench: createMcp({ tasksDir: WRITE_DIR, tempRoot }),
    });
    const result = await runConditions({
      session: env,
      kind: 'compare',
      params: {
        bench: 'mcp',
        split: 'dev',
        strategies: ['raw'],
        tasks: ['mcp-write'],
        guidelines: null,
      },
      command: 'test',
    });

    const agentRequests = server.requests.filter((r) => r.body?.tools !== undefined);
    expect(agentRequests).toHaveLength(3);
    // The model is offered exactly the server's tools, prefixed, plus complete_task.
    const offered = agentRequests[0]!.body!.tools!.map((t) => t.function.name);
    expect(offered).toEqual([...FS_TOOLS.map((t) => `fs__${t}`), 'complete_task']);
    const write = agentRequests[0]!.body!.tools!.find((t) => t.function.name === 'fs__write_file')!;
    expect(write.function.parameters).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
    });
    // The file's text came back from the real server as the first observation.
    const second = agentRequests[1]!.body!.messages;
    expect(second.at(-1)).toMatchObject({ role: 'tool', content: 'Budget: 4200 USD.\n' });
    expect(agentRequests[2]!.body!.messages.at(-1)!.content).toBe(
      'Successfully wrote to summary.txt',
    );
    // The write reached the disk between the second and the third request.
    expect(seenOnDisk).toEqual([false, false, true]);

    const [row] = env.store.rollouts(result.provenance.runId);
    expect(row!.success).toBe(true);
    expect(row!.evaluation.details.map((d) => [d.name, d.passed])).toEqual([
      ['answer', true],
      ['file_contains summary.txt', true],
    ]);
    // The rollout's temp folder is gone once it ended.
    expect(readdirSync(tempRoot)).toEqual([]);
    expect(readFileSync(join(WRITE_DIR, 'files/notes/budget.md'), 'utf8')).toBe(
      'Budget: 4200 USD.\n',
    );
    env.store.close();
  });
});

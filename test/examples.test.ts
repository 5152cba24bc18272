import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer, reply } from './fakes/fake-openai-server.js';
import { cleanEnv } from './helpers/cli.js';
import { compressorHandler, inspectAgentRequest } from './helpers/runtime-fixtures.js';

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, '..');
let server: FakeOpenAiServer;

beforeAll(async () => {
  // An agent that reads pages 0 and 1, then answers; compressor calls answered as a compressor.
  server = await FakeOpenAiServer.start({
    handler: compressorHandler((req) => {
      const seen = inspectAgentRequest(req).tools.length;
      return seen < 2
        ? reply.toolCalls([{ name: 'list_records', arguments: { page: seen } }])
        : reply.text('id 1042');
    }),
  });
});
afterAll(async () => {
  await server.close();
});

describe('examples/', () => {
  it.each(['library.mjs', 'ai-sdk.mjs', 'openai-agents.mjs', 'langchain.mjs'])(
    '%s runs against an OpenAI-compatible endpoint and compresses the tool results',
    async (script) => {
      const { stdout, stderr } = await run(process.execPath, [join(script)], {
        cwd: REPO,
        env: cleanEnv({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'k', AGENT_MODEL: 'agent' }),
      });
      expect(stdout.trim().length).toBeGreaterThan(0);
      expect(stderr).toMatch(/\[acon\] [\d]+ -> [\d]+ tokens, obs/);
    },
  );
});

function join(script: string): string {
  return resolve(REPO, 'examples', script);
}

describe('examples/offline.mjs', () => {
  it('runs with no server and no key, its compressions labelled SIMULATED', async () => {
    const { stdout, stderr } = await run(process.execPath, [join('offline.mjs')], {
      cwd: REPO,
      env: cleanEnv({}),
    });
    expect(stdout).toMatch(/^8 messages in, \d+ out/);
    expect(stderr).toMatch(/\[acon\] SIMULATED \d+ -> \d+ tokens, obs/);
  });
});

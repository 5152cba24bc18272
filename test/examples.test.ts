import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
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

/** Every runnable script of examples/ (common.mjs and support/ are what they share). */
const SCRIPTS = readdirSync(resolve(REPO, 'examples')).filter(
  (f) => f.endsWith('.mjs') && f !== 'common.mjs',
);

/** stderr lines an offline example may print: acon's reports, the stand-in's notice, the proxy's log. */
const OFFLINE_STDERR = [
  /^\[acon\] SIMULATED \d+ -> \d+ tokens(, [a-z ]+)?$/,
  /^\[offline\] the agent model is a scripted stand-in at http:\/\/127\.0\.0\.1:\d+\/v1, not an LLM/,
  /^SIMULATED: the compressors run on the sim provider/,
  /^POST \/v1\/chat\/completions 200 [\d,]+ -> [\d,]+ tokens \(obs 1\)$/,
  /^acon proxy: (SIGTERM: not accepting new requests|stopped)/,
];

describe('examples/ offline', () => {
  it('finds every example', () => {
    expect(SCRIPTS.sort()).toEqual([
      'ai-sdk.mjs',
      'langchain.mjs',
      'library.mjs',
      'offline.mjs',
      'openai-agents.mjs',
      'proxy-client.mjs',
    ]);
  });

  it.each(SCRIPTS)(
    '%s runs with no server and no key, its compressions labelled SIMULATED',
    async (script) => {
      const { stdout, stderr } = await run(process.execPath, [join(script)], {
        cwd: REPO,
        env: cleanEnv({}),
      });
      const lines = stderr.trim().split('\n');
      for (const line of lines) {
        expect(
          OFFLINE_STDERR.some((re) => re.test(line)),
          line,
        ).toBe(true);
      }
      if (script === 'proxy-client.mjs') {
        // The proxy's own log line and header: one tool result compressed on the way upstream.
        expect(stderr).toContain('SIMULATED: the compressors run on the sim provider');
        expect(stdout).toMatch(/^x-acon-compression: obs=1 hist=0 saved=[1-9]\d*$/m);
      } else {
        // Some report shrank a tool result.
        const shrunk = [...stderr.matchAll(/SIMULATED (\d+) -> (\d+) tokens, obs/g)].filter(
          ([, before, after]) => Number(after) < Number(before),
        );
        expect(shrunk.length).toBeGreaterThan(0);
      }
      if (script === 'offline.mjs') {
        expect(stdout).toMatch(/^8 messages in, \d+ out/);
      } else {
        // The agent's model is the labelled stand-in, never a hidden one.
        expect(stdout).toMatch(/^\[stand-in model, not an LLM\] received \d+ messages/m);
      }
      if (script === 'openai-agents.mjs') expect(stdout).toMatch(/^session: \d+ items stored$/m);
    },
  );
});

import { execFile, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAiServer, reply } from './fakes/fake-openai-server.js';
import { FakeResponsesUpstream } from './fakes/fake-responses-upstream.js';
import { runAcon, tempDir, type CliResult } from './helpers/cli.js';
import { bodyOf } from './helpers/runtime-fixtures.js';

/**
 * The proxy route for Python agents (docs/runtime.md "Python"): the requests the `openai` Python
 * package sends, from a standard-library client (test/fixtures/python/openai_requests.py), since
 * the package itself cannot be installed here (issue #59).
 */
const CLIENT = resolve(import.meta.dirname, 'fixtures/python/openai_requests.py');
const KEY = 'sk-python-client-0123456789';
const PYTHON = spawnSync('python3', ['--version']).status === 0;
if (!PYTHON && process.env.CI === 'true') {
  throw new Error('python3 is missing: .ci/run installs it (Debian package python3)');
}
const execFileP = promisify(execFile);

let child: ChildProcess | undefined;
let upstreams: { close(): Promise<void> }[] = [];
afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  for (const u of upstreams) await u.close();
  upstreams = [];
});

/** `acon proxy` (its default, the simulated compressor) in front of `upstream`. */
async function startProxy(upstream: string) {
  let stdout = '';
  let ready!: (url: string) => void;
  const listening = new Promise<string>((r) => (ready = r));
  const exited = runAcon(['proxy', '--upstream', upstream, '--port', '0'], {
    cwd: tempDir('acon-python-'),
    onStdout: (d) => {
      stdout += d;
      const url = /listening on (\S+)/.exec(stdout)?.[1];
      if (url) ready(url);
    },
    onSpawn: (c) => (child = c),
  });
  return { url: await listening, exited };
}

async function stop(exited: Promise<CliResult>): Promise<CliResult> {
  child!.kill('SIGTERM');
  const result = await exited;
  child = undefined;
  return result;
}

type Answer = {
  name: string;
  status: number;
  compression: string;
  text: string;
  toolChars: number;
};

async function python(url: string, kind: 'chat' | 'responses'): Promise<Answer[]> {
  const { stdout, stderr } = await execFileP('python3', [CLIENT, url, kind], {
    env: { PATH: process.env.PATH, OPENAI_API_KEY: KEY },
  });
  expect(stderr).toBe('');
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Answer);
}

describe.skipIf(!PYTHON)(
  'acon proxy with a Python client (urllib, the openai package requests)',
  () => {
    it('answers chat completions, streaming and not, compressing the tool result', async () => {
      const upstream = await FakeOpenAiServer.start({
        handler: () => reply.text('Arr, isinstance!'),
      });
      upstreams.push(upstream);
      const proxy = await startProxy(upstream.url);
      const answers = await python(proxy.url, 'chat');
      expect(answers.map((a) => [a.name, a.status, a.compression, a.text])).toEqual([
        ['readme', 200, 'obs=0 hist=0 saved=0', 'Arr, isinstance!'],
        ['readme-stream', 200, 'obs=0 hist=0 saved=0', 'Arr, isinstance!'],
        [
          'tool-result',
          200,
          expect.stringMatching(/^obs=1 hist=0 saved=[1-9]\d*$/),
          'Arr, isinstance!',
        ],
        [
          'tool-result-stream',
          200,
          expect.stringMatching(/^obs=1 hist=0 saved=[1-9]\d*$/),
          'Arr, isinstance!',
        ],
      ]);
      const sent = upstream.chatRequests;
      expect(sent).toHaveLength(4);
      // The client's key and the package's headers reach the upstream as they came.
      for (const r of sent) {
        expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
      }
      // The README's request passes as it came; the tool result is the compressor's.
      expect(bodyOf(sent[0]!).messages).toEqual([
        { role: 'developer', content: 'Talk like a pirate.' },
        { role: 'user', content: 'How do I check if a Python object is an instance of a class?' },
      ]);
      expect(JSON.parse(sent[1]!.raw)).toMatchObject({ stream: true, model: 'gpt-5.5' });
      for (const [i, r] of sent.entries()) {
        if (i < 2) continue;
        const messages = bodyOf(r).messages as {
          role: string;
          content?: unknown;
          tool_call_id?: string;
        }[];
        expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
        expect(messages[2]!.tool_call_id).toBe('call_1');
        expect(String(messages[2]!.content).length).toBeLessThan(answers[i]!.toolChars);
        expect(JSON.parse(r.raw)).toMatchObject({
          tools: [{ type: 'function', function: { name: 'list_records' } }],
        });
      }
      const result = await stop(proxy.exited);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('SIMULATED');
      expect(
        result.stderr.match(/POST \/v1\/chat\/completions 200 [\d,]+ -> [\d,]+ tokens \(obs 1\)/g),
      ).toHaveLength(2);
    });

    it('answers the Responses API, streaming and not, compressing the function_call_output', async () => {
      const upstream = await FakeResponsesUpstream.start('Arr, isinstance!');
      upstreams.push(upstream);
      const proxy = await startProxy(upstream.url);
      const answers = await python(proxy.url, 'responses');
      expect(answers.map((a) => [a.name, a.status, a.text])).toEqual([
        ['readme', 200, 'Arr, isinstance!'],
        ['readme-stream', 200, 'Arr, isinstance!'],
        ['tool-result', 200, 'Arr, isinstance!'],
        ['tool-result-stream', 200, 'Arr, isinstance!'],
      ]);
      // A single-string input has no history: passed through, and the header says so.
      expect(answers[0]!.compression).toMatch(/passthrough=/);
      expect(answers[1]!.compression).toMatch(/passthrough=/);
      expect(answers[2]!.compression).toMatch(/^obs=1 hist=0 saved=[1-9]\d*$/);
      expect(answers[3]!.compression).toMatch(/^obs=1 hist=0 saved=[1-9]\d*$/);
      expect(upstream.requests).toHaveLength(4);
      expect(upstream.requests[0]!.body).toEqual({
        instructions: 'You are a coding assistant that talks like a pirate.',
        input: 'How do I check if a Python object is an instance of a class?',
        model: 'gpt-5.5',
      });
      for (const [i, r] of upstream.requests.entries()) {
        if (i < 2) continue;
        const items = r.body.input as { type?: string; call_id?: string; output?: unknown }[];
        expect(items.map((i) => i.type ?? 'message')).toEqual([
          'message',
          'function_call',
          'function_call_output',
        ]);
        expect(items[2]!.call_id).toBe('call_1');
        expect(String(items[2]!.output).length).toBeLessThan(answers[i]!.toolChars);
      }
      const result = await stop(proxy.exited);
      expect(result.code).toBe(0);
    });
  },
);

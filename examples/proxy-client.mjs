// node examples/proxy-client.mjs: an OpenAI client whose requests go through `acon proxy`.
// With a proxy of your own running, e.g.
//   npx acon proxy --upstream "$OPENAI_BASE_URL" --provider openai --compressor-model gpt-4.1-mini
// run: ACON_PROXY_URL=http://127.0.0.1:8787/v1 node examples/proxy-client.mjs
// Without ACON_PROXY_URL the example starts both ends itself, offline: `acon proxy` with its
// default simulated compressor (it logs SIMULATED) in front of the scripted stand-in model
// (support/stand-in-model.mjs, not an LLM). Any OpenAI client works the same way (Python:
// OpenAI(base_url=...)); the proxy's stderr shows what it compressed.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath, URL } from 'node:url';
import OpenAI from 'openai';
import { bigRecords, env } from './common.mjs';
import { startStandInModel } from './support/stand-in-model.mjs';

const local = process.env.ACON_PROXY_URL === undefined ? await startLocalProxy() : null;
const client = new OpenAI({ baseURL: process.env.ACON_PROXY_URL ?? local.url, apiKey: env.apiKey });
const { data: stream, response } = await client.chat.completions
  .create({
    model: env.agentModel,
    stream: true,
    messages: [
      { role: 'system', content: 'You are a bookkeeping agent.' },
      { role: 'user', content: 'Find the largest amount among the records and report its id.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_0',
            type: 'function',
            function: { name: 'list_records', arguments: '{"page":0}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_0', content: bigRecords(0) },
    ],
  })
  .withResponse();
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? '');
process.stdout.write('\n');
// What the proxy did to this request, e.g. `obs=1 hist=0 saved=5873`.
console.log(`x-acon-compression: ${response.headers.get('x-acon-compression')}`);
await local?.close();

/** The stand-in model, and `acon proxy` in front of it on a free port (its log on our stderr). */
async function startLocalProxy() {
  const upstream = await startStandInModel();
  const bin = fileURLToPath(new URL('bin/acon.js', import.meta.resolve('acon/package.json')));
  const proxy = spawn(
    process.execPath,
    [
      bin,
      'proxy',
      '--upstream',
      upstream.url,
      '--port',
      '0',
      ...(process.env.ACON_GUIDELINES_DIR
        ? ['--guidelines-dir', process.env.ACON_GUIDELINES_DIR]
        : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // `acon proxy listening on http://127.0.0.1:PORT/v1 -> …` on its stdout says it is ready.
  const url = await new Promise((resolve, reject) => {
    let out = '';
    proxy.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const found = /listening on (\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    proxy.on('exit', (code) =>
      reject(new Error(`acon proxy exited (code ${code}) before listening`)),
    );
  });
  return {
    url,
    close: async () => {
      proxy.kill('SIGTERM');
      await once(proxy, 'exit');
      await upstream.close();
    },
  };
}

// Start a proxy first, e.g.
//   npx acon proxy --upstream "$OPENAI_BASE_URL" --provider openai --compressor-model gpt-4.1-mini
// then: ACON_PROXY_URL=http://127.0.0.1:8787/v1 node examples/proxy-client.mjs
// Any OpenAI client works the same way (Python: OpenAI(base_url=...)); the proxy's stderr shows
// what it compressed.
import OpenAI from 'openai';
import { bigRecords, env } from './common.mjs';

const client = new OpenAI({
  baseURL: process.env.ACON_PROXY_URL ?? 'http://127.0.0.1:8787/v1',
  apiKey: env.apiKey,
});
const stream = await client.chat.completions.create({
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
});
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? '');
process.stdout.write('\n');

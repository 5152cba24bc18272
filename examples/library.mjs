// node examples/library.mjs: compress an OpenAI-style conversation with the learned guidelines,
// then send it to the agent model. Offline (no OPENAI_BASE_URL) the compressor is simulated and
// the agent model a stand-in (common.mjs).
import OpenAI from 'openai';
import { agentEndpoint, bigRecords, env, makeCompressor } from './common.mjs';

const compressor = await makeCompressor();
const messages = [
  { role: 'system', content: 'You are a bookkeeping agent.' },
  { role: 'user', content: 'Find the largest amount among all records and report its id.' },
];
for (let page = 0; page < 3; page++) {
  const id = `call_${page}`;
  messages.push({
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id,
        type: 'function',
        function: { name: 'list_records', arguments: JSON.stringify({ page }) },
      },
    ],
  });
  messages.push({ role: 'tool', tool_call_id: id, content: bigRecords(page) });
}

const compressed = await compressor.compress(messages);
const agent = await agentEndpoint();
const client = new OpenAI({ baseURL: agent.baseURL, apiKey: env.apiKey });
const answer = await client.chat.completions.create({
  model: env.agentModel,
  messages: compressed,
});
console.log(answer.choices[0]?.message.content);
await agent.close();

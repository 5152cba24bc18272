// node examples/langchain.mjs (npm install langchain @langchain/openai): a LangChain v1 agent
// whose model calls are compressed by acon's middleware. Offline (no OPENAI_BASE_URL) the
// compressor is simulated and the agent model a stand-in (common.mjs).
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, tool } from 'langchain';
import { z } from 'zod';
import { aconMiddleware } from 'acon/langchain';
import { agentEndpoint, bigRecords, env, makeCompressor } from './common.mjs';

const endpoint = await agentEndpoint();
const agent = createAgent({
  model: new ChatOpenAI({
    model: env.agentModel,
    apiKey: env.apiKey,
    configuration: { baseURL: endpoint.baseURL },
  }),
  systemPrompt: 'You are a bookkeeping agent.',
  tools: [
    tool(async ({ page }) => bigRecords(page), {
      name: 'list_records',
      description: 'One page (0-4) of the records',
      schema: z.object({ page: z.number() }),
    }),
  ],
  middleware: [aconMiddleware(await makeCompressor())],
});
const state = await agent.invoke({
  messages: [
    {
      role: 'user',
      content: 'Read pages 0 to 4 of the records and report the id with the largest amount.',
    },
  ],
});
console.log(state.messages.at(-1)?.text);
await endpoint.close();

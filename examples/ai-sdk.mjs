// node examples/ai-sdk.mjs (npm install ai @ai-sdk/openai-compatible): a Vercel AI SDK tool loop
// whose every model call is compressed by acon's middleware. Offline (no OPENAI_BASE_URL) the
// compressor is simulated and the agent model a stand-in (common.mjs).
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { aconMiddleware } from 'acon/ai-sdk';
import { agentEndpoint, bigRecords, env, makeCompressor } from './common.mjs';

const agent = await agentEndpoint();
const provider = createOpenAICompatible({
  name: 'agent',
  baseURL: agent.baseURL,
  apiKey: env.apiKey,
});
const model = wrapLanguageModel({
  model: provider.chatModel(env.agentModel),
  middleware: aconMiddleware(await makeCompressor()),
});
const result = await generateText({
  model,
  stopWhen: stepCountIs(10),
  tools: {
    list_records: tool({
      description: 'One page (0-4) of the records',
      inputSchema: jsonSchema({
        type: 'object',
        properties: { page: { type: 'number' } },
        required: ['page'],
      }),
      execute: async ({ page }) => bigRecords(page),
    }),
  },
  prompt: 'Read pages 0 to 4 of the records and report the id with the largest amount.',
});
console.log(result.text);
await agent.close();

// node examples/openai-agents.mjs (npm install @openai/agents): an OpenAI Agents SDK run whose
// model input is compressed by acon's callModelInputFilter, and whose history is kept compacted
// in an acon session across runs. Offline (no OPENAI_BASE_URL) the compressor is simulated and
// the agent model a stand-in (common.mjs).
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { aconInputFilter, aconSession } from 'acon/openai-agents';
import { agentEndpoint, bigRecords, env, makeCompressor } from './common.mjs';

setTracingDisabled(true);
const endpoint = await agentEndpoint();
const agent = new Agent({
  name: 'bookkeeper',
  instructions: 'You are a bookkeeping agent.',
  model: new OpenAIChatCompletionsModel(
    new OpenAI({ baseURL: endpoint.baseURL, apiKey: env.apiKey }),
    env.agentModel,
  ),
  tools: [
    tool({
      name: 'list_records',
      description: 'One page (0-4) of the records',
      parameters: z.object({ page: z.number() }),
      execute: async ({ page }) => bigRecords(page),
    }),
  ],
});
const compressor = await makeCompressor();
// The filter compresses each model call of a run; the session stores the compacted history
// that the next run reads.
const session = aconSession(compressor);
const result = await run(
  agent,
  'Read pages 0 to 4 of the records and report the id with the largest amount.',
  { maxTurns: 10, session, callModelInputFilter: aconInputFilter(compressor) },
);
console.log(result.finalOutput);
console.log(`session: ${(await session.getItems()).length} items stored`);
await endpoint.close();

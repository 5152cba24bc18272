// node examples/openai-agents.mjs (npm install @openai/agents): an OpenAI Agents SDK run whose
// model input is compressed by acon's callModelInputFilter.
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { aconInputFilter } from 'acon/openai-agents';
import { bigRecords, env, makeCompressor } from './common.mjs';

setTracingDisabled(true);
const agent = new Agent({
  name: 'bookkeeper',
  instructions: 'You are a bookkeeping agent.',
  model: new OpenAIChatCompletionsModel(
    new OpenAI({ baseURL: env.baseURL, apiKey: env.apiKey }),
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
const result = await run(
  agent,
  'Read pages 0 to 4 of the records and report the id with the largest amount.',
  {
    maxTurns: 10,
    callModelInputFilter: aconInputFilter(await makeCompressor()),
  },
);
console.log(result.finalOutput);

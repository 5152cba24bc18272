import {
  Agent,
  OpenAIChatCompletionsModel,
  run,
  setTracingDisabled,
  tool,
  Usage,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from '@openai/agents';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { countTokens } from '../src/llm/tokenizer.js';
import { aconInputFilter } from '../src/runtime/adapters/openai-agents.js';
import { createContextCompressor, loadGuidelines } from '../src/runtime/index.js';
import { FakeOpenAiServer } from './fakes/fake-openai-server.js';
import {
  compressorAnswer,
  compressorHandler,
  inspectAgentRequest,
  listRecords,
  pairingIntact,
  toolLoopAgent,
} from './helpers/runtime-fixtures.js';

const TURNS = 12;
let model: FakeOpenAiServer;
let compressor: FakeOpenAiServer;
beforeEach(async () => {
  setTracingDisabled(true);
  model = await FakeOpenAiServer.start({ handler: toolLoopAgent(TURNS) });
  compressor = await FakeOpenAiServer.start({
    handler: compressorHandler(() => {
      throw new Error('not a compressor call');
    }),
  });
});
afterEach(async () => {
  await model.close();
  await compressor.close();
});

/**
 * A model of another provider, written against the Agents SDK's own `Model` interface: it reads
 * the request acon sent and answers as a compressor would.
 */
class FakeCompressorModel implements Model {
  readonly requests: ModelRequest[] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const text =
      compressorAnswer(request.systemInstructions ?? '', JSON.stringify(request.input)) ??
      'not a compressor call';
    return {
      usage: new Usage({ requests: 1, inputTokens: 100, outputTokens: 10, totalTokens: 110 }),
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text }],
        },
      ],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('acon asks a compressor for a whole answer, never a stream');
  }
}

function agentModel() {
  return new OpenAIChatCompletionsModel(
    new OpenAI({
      baseURL: model.url,
      apiKey: 'k',
      maxRetries: 0,
    }) as unknown as ConstructorParameters<typeof OpenAIChatCompletionsModel>[0],
    'agent',
  );
}

const listTool = tool({
  name: 'list_records',
  description: 'One page of records',
  parameters: z.object({ page: z.number() }),
  execute: async ({ page }) => listRecords(page),
});

describe('acon/openai-agents', () => {
  it('takes any Agents SDK Model as the compressor (a Model of another provider)', async () => {
    const compressorModel = new FakeCompressorModel();
    const agent = new Agent({
      name: 'lister',
      instructions: 'You are a careful agent.',
      model: agentModel(),
      tools: [listTool],
    });
    const result = await run(agent, 'List every record and report the total.', {
      maxTurns: TURNS + 2,
      callModelInputFilter: aconInputFilter({
        guidelines: await loadGuidelines(),
        model: compressorModel,
      }),
    });
    expect(result.finalOutput).toBe('total: 42');
    const systems = compressorModel.requests.map((r) => r.systemInstructions ?? '');
    expect(systems.some((s) => s.includes('You compress tool observations'))).toBe(true);
    expect(systems.some((s) => s.includes('You compress the interaction history'))).toBe(true);
    expect(compressorModel.requests.every((r) => r.tools.length === 0)).toBe(true);
    expect(compressor.chatRequests).toHaveLength(0);
    const last = inspectAgentRequest(model.chatRequests.at(-1)!);
    expect(last.summarized).toBe(true);
    expect(last.compressedTools).toBeGreaterThan(0);
    expect(pairingIntact(last.messages)).toBe(true);
  });

  it('compresses the input of every model call of a run through callModelInputFilter', async () => {
    const c = createContextCompressor({
      guidelines: await loadGuidelines(),
      model: { baseURL: compressor.url, apiKey: 'k', model: 'student' },
    });
    const agent = new Agent({
      name: 'lister',
      instructions: 'You are a careful agent.',
      model: new OpenAIChatCompletionsModel(
        // @openai/agents-openai may bring its own copy of `openai`: same client, another type.
        new OpenAI({
          baseURL: model.url,
          apiKey: 'k',
          maxRetries: 0,
        }) as unknown as ConstructorParameters<typeof OpenAIChatCompletionsModel>[0],
        'agent',
      ),
      tools: [
        tool({
          name: 'list_records',
          description: 'One page of records',
          parameters: z.object({ page: z.number() }),
          execute: async ({ page }) => listRecords(page),
        }),
      ],
    });
    const result = await run(agent, 'List every record and report the total.', {
      maxTurns: TURNS + 2,
      callModelInputFilter: aconInputFilter(c),
    });
    expect(result.finalOutput).toBe('total: 42');
    expect(model.chatRequests).toHaveLength(TURNS + 1);

    const last = inspectAgentRequest(model.chatRequests.at(-1)!);
    expect(last.summarized).toBe(true);
    expect(last.compressedTools).toBeGreaterThan(0);
    expect(last.tools.length).toBeLessThan(TURNS);
    for (const t of last.tools) expect(countTokens(t)).toBeLessThan(1024);
    expect(pairingIntact(last.messages)).toBe(true);
    expect(last.messages[0]).toMatchObject({ role: 'system', content: 'You are a careful agent.' });
    expect(JSON.stringify(last.messages[1])).toContain('List every record');
    // The run's own history keeps every full tool result.
    const outputs = result.history.filter((i) => 'type' in i && i.type === 'function_call_result');
    expect(outputs).toHaveLength(TURNS);
    expect(JSON.stringify(outputs[0])).toContain('item 0-0');
  });
});

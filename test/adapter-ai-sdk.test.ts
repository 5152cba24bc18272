import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aconMiddleware } from '../src/runtime/adapters/ai-sdk.js';
import {
  createContextCompressor,
  loadGuidelines,
  type CompressionReport,
} from '../src/runtime/index.js';
import { countTokens } from '../src/llm/tokenizer.js';
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

async function wrappedModel(reports: CompressionReport[]) {
  const c = createContextCompressor({
    guidelines: await loadGuidelines(),
    model: { baseURL: compressor.url, apiKey: 'k', model: 'student' },
    onReport: (r) => reports.push(r),
  });
  const provider = createOpenAICompatible({ name: 'fake', baseURL: model.url, apiKey: 'k' });
  return wrapLanguageModel({ model: provider.chatModel('agent'), middleware: aconMiddleware(c) });
}

const tools = {
  list_records: tool({
    description: 'One page of records',
    inputSchema: jsonSchema<{ page: number }>({
      type: 'object',
      properties: { page: { type: 'number' } },
      required: ['page'],
    }),
    execute: async ({ page }) => listRecords(page),
  }),
};

function expectCompressedLastRequest() {
  const last = inspectAgentRequest(model.chatRequests.at(-1)!);
  expect(last.summarized).toBe(true);
  expect(last.compressedTools).toBeGreaterThan(0);
  expect(last.tools.length).toBeLessThan(TURNS);
  for (const t of last.tools) expect(countTokens(t)).toBeLessThan(1024);
  expect(pairingIntact(last.messages)).toBe(true);
  // The task stays verbatim.
  expect(JSON.stringify(last.messages[0])).toContain('List every record');
}

describe('acon/ai-sdk', () => {
  it('compresses what the model receives in a generateText tool loop', async () => {
    const reports: CompressionReport[] = [];
    const result = await generateText({
      model: await wrappedModel(reports),
      tools,
      stopWhen: stepCountIs(TURNS + 2),
      prompt: 'List every record and report the total.',
    });
    expect(result.text).toBe('total: 42');
    expect(model.chatRequests).toHaveLength(TURNS + 1);
    expectCompressedLastRequest();
    // The caller's own history is untouched: every full tool result is still there.
    const results = result.steps.flatMap((s) => s.toolResults);
    expect(results).toHaveLength(TURNS);
    expect(String(results[0]!.output)).toBe(listRecords(0));
    expect(reports.some((r) => r.events.some((e) => e.kind === 'hist'))).toBe(true);
  });

  it('compresses a streamText tool loop the same way', async () => {
    const stream = streamText({
      model: await wrappedModel([]),
      tools,
      stopWhen: stepCountIs(TURNS + 2),
      prompt: 'List every record and report the total.',
    });
    expect(await stream.text).toBe('total: 42');
    expectCompressedLastRequest();
  });

  it('takes any AI SDK LanguageModel as the compressor (a LanguageModelV3 of another provider)', async () => {
    // A provider's model as the AI SDK specifies it (LanguageModelV3): it reads the prompt
    // acon rendered and answers as a compressor would.
    const compressorModel = new MockLanguageModelV3({
      provider: 'mock-anthropic',
      modelId: 'claude-mock',
      doGenerate: async ({ prompt }) => {
        const system = prompt.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n');
        const text = JSON.stringify(prompt.filter((m) => m.role === 'user'));
        return {
          content: [
            { type: 'text', text: compressorAnswer(system, text) ?? 'not a compressor call' },
          ],
          finishReason: { unified: 'stop', raw: 'end_turn' },
          usage: {
            inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 10, text: 10, reasoning: 0 },
          },
          warnings: [],
        };
      },
    });
    const reports: CompressionReport[] = [];
    const provider = createOpenAICompatible({ name: 'fake', baseURL: model.url, apiKey: 'k' });
    const result = await generateText({
      model: wrapLanguageModel({
        model: provider.chatModel('agent'),
        middleware: aconMiddleware({
          guidelines: await loadGuidelines(),
          model: compressorModel,
          onReport: (r) => reports.push(r),
        }),
      }),
      tools,
      stopWhen: stepCountIs(TURNS + 2),
      prompt: 'List every record and report the total.',
    });
    expect(result.text).toBe('total: 42');
    // Both compressors went through the framework model, not an OpenAI endpoint.
    const systems = compressorModel.doGenerateCalls.map((c) =>
      JSON.stringify(c.prompt.find((m) => m.role === 'system')),
    );
    expect(systems.some((s) => s.includes('You compress tool observations'))).toBe(true);
    expect(systems.some((s) => s.includes('You compress the interaction history'))).toBe(true);
    expect(compressor.chatRequests).toHaveLength(0);
    expect(reports.flatMap((r) => r.events).every((e) => !e.failed)).toBe(true);
    expectCompressedLastRequest();
  });
});

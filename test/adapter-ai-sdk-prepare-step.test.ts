import {
  generateText,
  jsonSchema,
  simulateReadableStream,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
  type ModelMessage,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  aconMiddleware,
  aconPrepareStep,
  type AconStepMetadata,
} from '../src/runtime/adapters/ai-sdk.js';
import { loadGuidelines, type CompressionReport } from '../src/runtime/index.js';
import { compressorAnswer, listRecords, SHORT } from './helpers/runtime-fixtures.js';

const TURNS = 12;
const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};
type Prompt = Parameters<MockLanguageModelV3['doGenerate']>[0]['prompt'];

/** A LanguageModelV3 that answers acon's compressor prompts as a compressor would. */
function compressorModel() {
  return new MockLanguageModelV3({
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
        usage,
        warnings: [],
      };
    },
  });
}

/** A scripted agent model (LanguageModelV3): list_records pages 0..TURNS-1, then an answer. */
function agentModel() {
  let calls = 0;
  const nextMove = () => {
    const page = calls++;
    return page < TURNS ? { page } : null;
  };
  return new MockLanguageModelV3({
    provider: 'mock-agent',
    modelId: 'agent',
    doGenerate: async () => {
      const move = nextMove();
      return {
        content: move
          ? [
              {
                type: 'tool-call',
                toolCallId: `call_${move.page}`,
                toolName: 'list_records',
                input: JSON.stringify(move),
              },
            ]
          : [{ type: 'text', text: 'total: 42' }],
        finishReason: move
          ? { unified: 'tool-calls', raw: 'tool_use' }
          : { unified: 'stop', raw: 'end_turn' },
        usage,
        warnings: [],
      };
    },
    doStream: async () => {
      const move = nextMove();
      return {
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start' as const, warnings: [] },
            ...(move
              ? [
                  {
                    type: 'tool-call' as const,
                    toolCallId: `call_${move.page}`,
                    toolName: 'list_records',
                    input: JSON.stringify(move),
                  },
                ]
              : [
                  { type: 'text-start' as const, id: 't' },
                  { type: 'text-delta' as const, id: 't', delta: 'total: 42' },
                  { type: 'text-end' as const, id: 't' },
                ]),
            {
              type: 'finish' as const,
              finishReason: move
                ? { unified: 'tool-calls' as const, raw: 'tool_use' }
                : { unified: 'stop' as const, raw: 'end_turn' },
              usage,
            },
          ],
        }),
      };
    },
  });
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

function toolTexts(prompt: Prompt): string[] {
  return prompt.flatMap((m) =>
    m.role === 'tool'
      ? m.content.flatMap((p) =>
          p.type === 'tool-result' && p.output.type === 'text' ? [p.output.value] : [],
        )
      : [],
  );
}

function metadata(step: { providerMetadata?: Record<string, unknown> | undefined }) {
  return step.providerMetadata?.acon as AconStepMetadata | undefined;
}

describe('acon/ai-sdk aconPrepareStep', () => {
  it('compresses each step of a generateText tool loop and reports it in steps and onStepFinish', async () => {
    const agent = agentModel();
    const reports: CompressionReport[] = [];
    const finished: (AconStepMetadata | undefined)[] = [];
    const given: ModelMessage[][] = [];
    const prepare = aconPrepareStep({
      guidelines: await loadGuidelines(),
      model: compressorModel(),
      onReport: (r) => reports.push(r),
    });
    const result = await generateText({
      model: agent,
      tools,
      stopWhen: stepCountIs(TURNS + 2),
      prompt: 'List every record and report the total.',
      prepareStep: async (step) => {
        given.push(step.messages);
        return prepare(step);
      },
      onStepFinish: (step) => {
        finished.push(metadata(step));
      },
    });
    expect(result.text).toBe('total: 42');
    expect(result.steps).toHaveLength(TURNS + 1);

    // What the last step's model received: folded and compressed, tool calls with their results.
    const last = agent.doGenerateCalls.at(-1)!.prompt;
    expect(JSON.stringify(last)).toContain('[Context summary]');
    expect(JSON.stringify(last[0])).toContain('List every record');
    expect(toolTexts(last).length).toBeLessThan(TURNS);
    // The step input of the first steps has the page-0 result compressed (over T_obs).
    expect(toolTexts(agent.doGenerateCalls[1]!.prompt)).toEqual([SHORT(0)]);

    // The caller's history is whole: prepareStep was given every full result, and steps keep them.
    const lastGiven = given.at(-1)!.filter((m) => m.role === 'tool');
    expect(lastGiven).toHaveLength(TURNS);
    expect(String(result.steps[0]!.toolResults[0]!.output)).toBe(listRecords(0));

    // Every step reports in its provider metadata; the reports are the ones onReport got.
    const stepMeta = result.steps.map(metadata);
    expect(stepMeta.every((m) => m !== undefined)).toBe(true);
    expect(finished).toEqual(stepMeta);
    const kinds = stepMeta.flatMap((m) => m!.compressions.map((c) => c.kind));
    expect(kinds).toContain('obs');
    expect(kinds).toContain('hist');
    expect(stepMeta.map((m) => m!.tokensAfter)).toEqual(reports.map((r) => r.tokensAfter));
    expect(stepMeta.at(-1)!.tokensAfter).toBeLessThan(stepMeta.at(-1)!.tokensBefore);
    expect(stepMeta.every((m) => m!.simulated === false && m!.error === undefined)).toBe(true);
  });

  it('works with streamText the same way, the report in the streamed steps', async () => {
    const agent = agentModel();
    const stream = streamText({
      model: agent,
      tools,
      stopWhen: stepCountIs(TURNS + 2),
      prompt: 'List every record and report the total.',
      prepareStep: aconPrepareStep({
        guidelines: await loadGuidelines(),
        model: compressorModel(),
      }),
    });
    expect(await stream.text).toBe('total: 42');
    const steps = await stream.steps;
    expect(steps).toHaveLength(TURNS + 1);
    expect(steps.flatMap((s) => metadata(s)?.compressions ?? []).map((c) => c.kind)).toContain(
      'hist',
    );
    expect(JSON.stringify(agent.doStreamCalls.at(-1)!.prompt)).toContain('[Context summary]');
  });
});

describe('acon/ai-sdk aconMiddleware step reports', () => {
  it('puts each call report in the step provider metadata, for generateText and streamText', async () => {
    const guidelines = await loadGuidelines();
    const reports: CompressionReport[] = [];
    const middleware = aconMiddleware({
      guidelines,
      model: compressorModel(),
      onReport: (r) => reports.push(r),
    });
    const generated = await generateText({
      model: wrapLanguageModel({ model: agentModel(), middleware }),
      tools,
      stopWhen: stepCountIs(TURNS + 2),
      prompt: 'List every record and report the total.',
    });
    const meta = generated.steps.map(metadata);
    expect(meta.map((m) => m?.tokensAfter)).toEqual(reports.map((r) => r.tokensAfter));
    expect(meta.flatMap((m) => m!.compressions.map((c) => c.kind))).toEqual(
      expect.arrayContaining(['obs', 'hist']),
    );

    const stream = streamText({
      model: wrapLanguageModel({ model: agentModel(), middleware }),
      tools,
      stopWhen: stepCountIs(TURNS + 2),
      prompt: 'List every record and report the total.',
    });
    await stream.consumeStream();
    const streamed = (await stream.steps).map(metadata);
    expect(streamed).toHaveLength(TURNS + 1);
    // The same conversation: the same compressions, answered from the call cache this time.
    expect(streamed.map((m) => m?.tokensAfter)).toEqual(meta.map((m) => m?.tokensAfter));
    expect(streamed.flatMap((m) => m!.compressions).every((c) => c.cached)).toBe(true);
  });
});

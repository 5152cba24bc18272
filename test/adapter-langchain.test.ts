import { ChatOpenAI } from '@langchain/openai';
import { createAgent, tool } from 'langchain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { countTokens } from '../src/llm/tokenizer.js';
import { aconMiddleware } from '../src/runtime/adapters/langchain.js';
import { createContextCompressor, loadGuidelines } from '../src/runtime/index.js';
import { FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { FakeCompressorChatModel } from './helpers/fake-chat-models.js';
import {
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

function agentWith(middleware: ReturnType<typeof aconMiddleware>) {
  return createAgent({
    model: new ChatOpenAI({
      model: 'agent',
      apiKey: 'k',
      maxRetries: 0,
      configuration: { baseURL: model.url },
    }),
    systemPrompt: 'You are a careful agent.',
    tools: [
      tool(async ({ page }: { page: number }) => listRecords(page), {
        name: 'list_records',
        description: 'One page of records',
        schema: z.object({ page: z.number() }),
      }),
    ],
    middleware: [middleware],
  });
}

describe('acon/langchain', () => {
  it('takes any LangChain chat model as the compressor (a BaseChatModel of another provider)', async () => {
    const chatModel = new FakeCompressorChatModel();
    const agent = agentWith(
      aconMiddleware({ guidelines: await loadGuidelines(), model: chatModel }),
    );
    const state = await agent.invoke(
      { messages: [{ role: 'user', content: 'List every record and report the total.' }] },
      { recursionLimit: 4 * TURNS },
    );
    expect(state.messages.at(-1)!.text).toBe('total: 42');
    const systems = chatModel.calls.map((c) => c[0]!.text);
    expect(systems.some((s) => s.includes('You compress tool observations'))).toBe(true);
    expect(systems.some((s) => s.includes('You compress the interaction history'))).toBe(true);
    expect(compressor.chatRequests).toHaveLength(0);
    const last = inspectAgentRequest(model.chatRequests.at(-1)!);
    expect(last.summarized).toBe(true);
    expect(last.compressedTools).toBeGreaterThan(0);
    expect(pairingIntact(last.messages)).toBe(true);
  });

  it('compresses the messages of every model call of a createAgent loop', async () => {
    const c = createContextCompressor({
      guidelines: await loadGuidelines(),
      model: { baseURL: compressor.url, apiKey: 'k', model: 'student' },
    });
    const agent = createAgent({
      model: new ChatOpenAI({
        model: 'agent',
        apiKey: 'k',
        maxRetries: 0,
        configuration: { baseURL: model.url },
      }),
      systemPrompt: 'You are a careful agent.',
      tools: [
        tool(async ({ page }: { page: number }) => listRecords(page), {
          name: 'list_records',
          description: 'One page of records',
          schema: z.object({ page: z.number() }),
        }),
      ],
      middleware: [aconMiddleware(c)],
    });
    const state = await agent.invoke(
      { messages: [{ role: 'user', content: 'List every record and report the total.' }] },
      { recursionLimit: 4 * TURNS },
    );
    expect(state.messages.at(-1)!.text).toBe('total: 42');
    expect(model.chatRequests).toHaveLength(TURNS + 1);

    const last = inspectAgentRequest(model.chatRequests.at(-1)!);
    expect(last.summarized).toBe(true);
    expect(last.compressedTools).toBeGreaterThan(0);
    expect(last.tools.length).toBeLessThan(TURNS);
    for (const t of last.tools) expect(countTokens(t)).toBeLessThan(1024);
    expect(pairingIntact(last.messages)).toBe(true);
    expect(last.messages[0]!.role).toBe('system');
    expect(JSON.stringify(last.messages[0])).toContain('You are a careful agent.');
    expect(JSON.stringify(last.messages[1])).toContain('List every record');
    // The agent's state keeps every full tool result.
    const results = state.messages.filter((m) => m.getType() === 'tool');
    expect(results).toHaveLength(TURNS);
    expect(results[0]!.text).toBe(listRecords(0));
  });
});

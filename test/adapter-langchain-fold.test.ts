import { FakeListChatModel } from '@langchain/core/utils/testing';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, summarizationMiddleware, tool, type BaseMessage } from 'langchain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aconMiddleware } from '../src/runtime/adapters/langchain.js';
import { loadGuidelines } from '../src/runtime/index.js';
import { FakeOpenAiServer, type FakeRequest } from './fakes/fake-openai-server.js';
import { FakeCompressorChatModel } from './helpers/fake-chat-models.js';
import { bigToolResult, bodyOf, SUMMARY, toolLoopAgent } from './helpers/runtime-fixtures.js';

const TURNS = 20;
const TASK = 'List every record and report the total.';
const PREFIX = 'Here is a summary of the conversation to date:';
// Tool results under T_obs (about 600 o200k tokens): only the history folds, so the two
// middlewares see the same messages.
const page = (n: number) => bigToolResult(n, 600);
let servers: FakeOpenAiServer[] = [];
beforeEach(() => {
  servers = [];
});
afterEach(async () => {
  for (const s of servers) await s.close();
});

async function runAgent(middleware: Parameters<typeof createAgent>[0]['middleware']) {
  const server = await FakeOpenAiServer.start({ handler: toolLoopAgent(TURNS) });
  servers.push(server);
  const agent = createAgent({
    model: new ChatOpenAI({
      model: 'agent',
      apiKey: 'k',
      maxRetries: 0,
      configuration: { baseURL: server.url },
    }),
    tools: [
      tool(async ({ page: n }: { page: number }) => page(n), {
        name: 'list_records',
        description: 'One page of records',
        schema: z.object({ page: z.number() }),
      }),
    ],
    middleware,
  });
  const state = await agent.invoke(
    { messages: [{ role: 'user', content: TASK }] },
    { recursionLimit: 4 * TURNS },
  );
  return { state: state.messages as BaseMessage[], requests: server.chatRequests };
}

/** A request as the model saw it: `task`, `summary`, `ai:<call ids>`, `tool:<call id>`. */
function shape(req: FakeRequest): string[] {
  return bodyOf(req).messages.map((m) => {
    const { role, content } = m as { role: string; content?: unknown; tool_call_id?: string };
    const text = typeof content === 'string' ? content : JSON.stringify(content ?? '');
    if (role === 'tool') return `tool:${(m as unknown as { tool_call_id: string }).tool_call_id}`;
    if (role === 'assistant') {
      const calls = (m as { tool_calls?: { id: string }[] }).tool_calls ?? [];
      return `ai:${calls.map((c) => c.id).join(',')}`;
    }
    if (text.startsWith(PREFIX)) return `summary:${text.includes(SUMMARY) ? 'ok' : 'other'}`;
    return text === TASK ? 'task' : `${role}?`;
  });
}

/** acon keeps the task verbatim before the summary; LangChain's summary replaces it. */
const withoutKeptTask = (s: string[]) =>
  s[0] === 'task' && s[1]?.startsWith('summary') ? s.slice(1) : s;

const folds = (shapes: string[][]) =>
  shapes.flatMap((s, i) => (i > 0 && s.length < shapes[i - 1]!.length ? [i] : []));

describe('acon/langchain with summarizationMiddleware options', () => {
  it('folds on exactly the model calls LangChain summarizationMiddleware folds on (trigger tokens 4000, keep 6 messages)', async () => {
    const guidelines = await loadGuidelines();
    const options = { trigger: { tokens: 4000 }, keep: { messages: 6 } };
    const lc = await runAgent([
      summarizationMiddleware({
        model: new FakeListChatModel({ responses: [SUMMARY] }),
        ...options,
      }),
    ]);
    const compressorModel = new FakeCompressorChatModel();
    const replaced = await runAgent([
      aconMiddleware({ guidelines, model: compressorModel, ...options, replaceState: true }),
    ]);
    const viewed = await runAgent([
      aconMiddleware({ guidelines, model: new FakeCompressorChatModel(), ...options }),
    ]);

    const lcShapes = lc.requests.map(shape);
    expect(lcShapes).toHaveLength(TURNS + 1);
    // LangChain's middleware folds several times in this conversation: the comparison has teeth.
    expect(folds(lcShapes).length).toBeGreaterThanOrEqual(2);
    for (const run of [replaced, viewed]) {
      const shapes = run.requests.map(shape);
      expect(shapes.map(withoutKeptTask)).toEqual(lcShapes);
      // The task stays verbatim in every call.
      for (const s of shapes) expect(s[0]).toBe('task');
    }
    // The summary was written by ACON's history compressor (the framework model given).
    expect(
      compressorModel.calls.some((c) =>
        c[0]!.text.includes('You compress the interaction history'),
      ),
    ).toBe(true);

    // replaceState shrinks the saved state as LangChain does; the default keeps every message.
    const stateShape = (messages: BaseMessage[]) =>
      messages.map((m) => `${m.getType()}:${m.text.startsWith(PREFIX) ? 'summary' : ''}`);
    expect(stateShape(replaced.state)).toEqual(stateShape(lc.state));
    expect(viewed.state).toHaveLength(2 * TURNS + 2);
  });
});

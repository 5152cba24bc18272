import {
  Agent,
  run,
  setTracingDisabled,
  tool,
  Usage,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from '@openai/agents';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aconSession, type SessionCompaction } from '../src/runtime/adapters/openai-agents.js';
import { loadGuidelines } from '../src/runtime/index.js';
import { HIST_PROMPT, listRecords, OBS_PROMPT, SHORT } from './helpers/runtime-fixtures.js';

const PAGES = 3;

beforeEach(() => setTracingDisabled(true));

function response(output: ModelResponse['output']): ModelResponse {
  return {
    usage: new Usage({ requests: 1, inputTokens: 100, outputTokens: 10, totalTokens: 110 }),
    output,
  };
}

const inputItems = (req: ModelRequest): AgentInputItem[] =>
  typeof req.input === 'string'
    ? [{ type: 'message', role: 'user', content: req.input }]
    : req.input;

/**
 * The agent's model, written against the Agents SDK's own `Model` interface (no server): in
 * every run it asks for `list_records` pages until it has PAGES results after the run's own
 * user message, then answers with text.
 */
class ScriptedAgentModel implements Model {
  readonly requests: ModelRequest[] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const items = inputItems(request);
    const lastUser = items.findLastIndex((i) => 'role' in i && i.role === 'user');
    const results = items
      .slice(lastUser + 1)
      .filter((i) => 'type' in i && i.type === 'function_call_result').length;
    if (results < PAGES) {
      return response([
        {
          type: 'function_call',
          callId: `call_${this.requests.length}`,
          name: 'list_records',
          arguments: JSON.stringify({ page: results }),
          status: 'completed',
        },
      ]);
    }
    return response([
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: `listed ${results} pages` }],
      },
    ]);
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('this test runs without streaming');
  }
}

/** A compressor of another provider (the Agents SDK's `Model`): numbered history summaries. */
class NumberingCompressorModel implements Model {
  readonly histRequests: string[] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const system = request.systemInstructions ?? '';
    const text = JSON.stringify(request.input);
    let answer = 'not a compressor call';
    if (system.includes(OBS_PROMPT)) {
      const seed = /<observation>[\s\S]*?item (\d+)-0/.exec(text)?.[1] ?? '?';
      answer = `# Refined Observation\n${SHORT(seed)}`;
    } else if (system.includes(HIST_PROMPT)) {
      this.histRequests.push(text);
      answer = `# History Summary\nSUMMARY#${this.histRequests.length}: listed pages.`;
    }
    return response([
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: answer }],
      },
    ]);
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('acon asks a compressor for a whole answer, never a stream');
  }
}

const listTool = tool({
  name: 'list_records',
  description: 'One page of records',
  parameters: z.object({ page: z.number() }),
  execute: async ({ page }) => listRecords(page),
});

const marked = (i: AgentInputItem) =>
  (i as { providerData?: Record<string, unknown> }).providerData?.acon_summary === true;
const text = (i: AgentInputItem) => JSON.stringify(i);

/** Every function result in `items` follows the function call it answers. */
function pairsIntact(items: AgentInputItem[]): boolean {
  const calls = new Set<string>();
  for (const i of items) {
    if ('type' in i && i.type === 'function_call') calls.add(i.callId);
    if ('type' in i && i.type === 'function_call_result' && !calls.has(i.callId)) return false;
  }
  return true;
}

describe('aconSession (acon/openai-agents)', () => {
  it('stores compacted items over several runs of the real runner, with one summary that each fold replaces', async () => {
    const agentModel = new ScriptedAgentModel();
    const compressorModel = new NumberingCompressorModel();
    const compactions: SessionCompaction[] = [];
    // The runner compacts once a run, after storing it. Page 1's result (900 tokens, under
    // T_obs) stays verbatim, so each run's stored history alone is over 600 tokens and folds.
    const session = aconSession(
      { guidelines: await loadGuidelines(), model: compressorModel },
      { historyTokens: 600, onCompaction: (c) => compactions.push(c) },
    );
    const agent = new Agent({
      name: 'lister',
      instructions: 'You are a careful agent.',
      model: agentModel,
      tools: [listTool],
    });

    const outputs: unknown[] = [];
    for (const n of [1, 2, 3]) {
      const result = await run(agent, `Run ${n}: list every record page.`, {
        session,
        maxTurns: PAGES + 2,
      });
      outputs.push(result.finalOutput);
      // Stored: the first request, the summary, this run's request (the first run's is the
      // head) and its answer, verbatim.
      const after = (await session.getItems()).map(text);
      const request = text({
        type: 'message',
        role: 'user',
        content: `Run ${n}: list every record page.`,
      });
      expect(after[0]).toContain('Run 1: list every record page.');
      expect(after[1]).toContain('SUMMARY#');
      expect(after.slice(2, -1)).toEqual(n === 1 ? [] : [request]);
      expect(after.at(-1)).toContain(`listed ${PAGES} pages`);
      // Each run's first model call reads the session as the previous runs left it.
      const first = inputItems(agentModel.requests.at(-(PAGES + 1))!);
      if (n > 1) {
        expect(first.filter((i) => text(i).includes('SUMMARY#'))).toHaveLength(1);
        // The mark is acon's: the model is never sent it.
        expect(first.some(marked)).toBe(false);
        expect(pairsIntact(first)).toBe(true);
      }
    }
    expect(outputs).toEqual([
      `listed ${PAGES} pages`,
      `listed ${PAGES} pages`,
      `listed ${PAGES} pages`,
    ]);

    const stored = await session.getItems();
    // One summary, the latest one, right after the task; the task stays verbatim.
    const summaries = stored.filter(marked);
    expect(summaries).toHaveLength(1);
    expect(text(summaries[0]!)).toContain(`SUMMARY#${compressorModel.histRequests.length}`);
    expect(text(stored[0]!)).toContain('Run 1: list every record page.');
    expect(stored[1]).toBe(summaries[0]);
    expect(pairsIntact(stored)).toBe(true);
    // Every later fold was handed the summary it replaces.
    expect(compressorModel.histRequests.length).toBeGreaterThan(1);
    compressorModel.histRequests.slice(1).forEach((req, i) => {
      expect(req).toContain(`SUMMARY#${i + 1}`);
    });
    // Stored tool results over T_obs are the observation compressor's.
    const results = stored.filter((i) => 'type' in i && i.type === 'function_call_result');
    for (const r of results) expect(text(r).length).toBeLessThan(8000);
    expect(compactions.some((c) => c.history !== undefined)).toBe(true);
    expect(compactions.every((c) => c.itemsAfter <= c.itemsBefore)).toBe(true);
    // The third run's items far outnumber what is stored: 3 runs × (user, 3 calls, 3 results, answer).
    expect(stored.length).toBeLessThan(3 * (2 + 2 * PAGES));
  });

  it('leaves a short history as it is', async () => {
    const session = aconSession({
      guidelines: await loadGuidelines(),
      model: new NumberingCompressorModel(),
    });
    await session.addItems([
      { type: 'message', role: 'user', content: 'Say hi.' },
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'hi' }],
      },
    ]);
    const before = await session.getItems();
    expect(await session.runCompaction()).toBeNull();
    expect(await session.getItems()).toEqual(before);
  });
});

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
  type StreamEventResponseCompleted,
} from '@openai/agents';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  aconInputFilter,
  aconSession,
  type SessionCompaction,
} from '../src/runtime/adapters/openai-agents.js';
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
 * every run it asks for `list_records` pages until it has `pages` results after the run's own
 * user message, then answers with text. Streamed, it sends what the SDK's Chat Completions model
 * sends (agents-openai `openaiChatCompletionsStreaming`): `response_started`, the text as
 * `output_text_delta`s, then `response_done` with the whole output.
 */
class ScriptedAgentModel implements Model {
  readonly requests: ModelRequest[] = [];
  streamed = 0;
  constructor(private readonly pages = PAGES) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    return response(this.answer(request));
  }
  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    this.streamed++;
    const output = this.answer(request);
    yield { type: 'response_started' };
    for (const item of output) {
      if (item.type !== 'message' || item.role !== 'assistant') continue;
      for (const part of item.content) {
        if (part.type === 'output_text') yield { type: 'output_text_delta', delta: part.text };
      }
    }
    yield {
      type: 'response_done',
      response: {
        id: `resp_${this.requests.length}`,
        usage: { requests: 1, inputTokens: 100, outputTokens: 10, totalTokens: 110 },
        output,
      },
    };
  }
  private answer(request: ModelRequest): StreamEventResponseCompleted['response']['output'] {
    this.requests.push(request);
    const items = inputItems(request);
    const lastUser = items.findLastIndex((i) => 'role' in i && i.role === 'user');
    const results = items
      .slice(lastUser + 1)
      .filter((i) => 'type' in i && i.type === 'function_call_result').length;
    if (results < this.pages) {
      return [
        {
          type: 'function_call',
          callId: `call_${this.requests.length}`,
          name: 'list_records',
          arguments: JSON.stringify({ page: results }),
          status: 'completed',
        },
      ];
    }
    return [
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: `listed ${results} pages` }],
      },
    ];
  }
}

/**
 * A compressor of another provider (the Agents SDK's `Model`): numbered history summaries,
 * `SUMMARY#<label><n>`, so a test with two compressors tells whose summary it sees.
 */
class NumberingCompressorModel implements Model {
  readonly histRequests: string[] = [];
  constructor(private readonly label = '') {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const system = request.systemInstructions ?? '';
    const text = JSON.stringify(request.input);
    let answer = 'not a compressor call';
    if (system.includes(OBS_PROMPT)) {
      const seed = /<observation>[\s\S]*?item (\d+)-0/.exec(text)?.[1] ?? '?';
      answer = `# Refined Observation\n${SHORT(seed)}`;
    } else if (system.includes(HIST_PROMPT)) {
      this.histRequests.push(text);
      answer = `# History Summary\nSUMMARY#${this.label}${this.histRequests.length}: listed pages.`;
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

/**
 * An agent model scripted by its own count, not by what it is shown: an input filter may fold
 * this run's request and results out of the view, and a stand-in that read the view would then
 * loop. `startRun()` resets the count.
 */
class CountingAgentModel implements Model {
  readonly requests: ModelRequest[] = [];
  private calls = 0;
  constructor(private readonly pages: number) {}
  startRun(): void {
    this.calls = 0;
  }
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const page = this.calls++;
    if (page < this.pages) {
      return response([
        {
          type: 'function_call',
          callId: `call_${this.requests.length}`,
          name: 'list_records',
          arguments: JSON.stringify({ page }),
          status: 'completed',
        },
      ]);
    }
    return response([
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: `listed ${this.pages} pages` }],
      },
    ]);
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('this model runs without streaming');
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
  it.each([{ stream: false }, { stream: true }])(
    'stores compacted items over several runs of the real runner, with one summary that each fold replaces (stream: $stream)',
    async ({ stream }) => {
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
        const input = `Run ${n}: list every record page.`;
        if (stream) {
          // A streamed run stores its items and compacts when the stream has finished
          // (agents-core run.js: saveStreamResultToSession at the end of the stream loop), so the
          // session is compacted by the time `completed` resolves.
          const result = await run(agent, input, { session, maxTurns: PAGES + 2, stream: true });
          let deltas = '';
          for await (const event of result) {
            if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta')
              deltas += event.data.delta;
          }
          await result.completed;
          expect(deltas).toBe(`listed ${PAGES} pages`);
          outputs.push(result.finalOutput);
        } else {
          outputs.push((await run(agent, input, { session, maxTurns: PAGES + 2 })).finalOutput);
        }
        // One compaction a run, after the run's items were stored.
        expect(compactions).toHaveLength(n);
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
      expect(agentModel.streamed).toBe(stream ? agentModel.requests.length : 0);
    },
  );

  it('works with aconInputFilter in the same runs: the filter folds only the view, the session stores one summary of its own', async () => {
    const pages = 6;
    const agentModel = new CountingAgentModel(pages);
    // Two compressors, so every summary says whose it is: F (the filter's view), S (the store).
    const filterModel = new NumberingCompressorModel('F');
    const sessionModel = new NumberingCompressorModel('S');
    const guidelines = await loadGuidelines();
    const session = aconSession({ guidelines, model: sessionModel }, { historyTokens: 600 });
    // T_hist 1500: the view of one run of 6 pages folds inside the run.
    const callModelInputFilter = aconInputFilter({
      guidelines,
      model: filterModel,
      thresholds: { hist: 1500 },
    });
    const agent = new Agent({
      name: 'lister',
      instructions: 'You are a careful agent.',
      model: agentModel,
      tools: [listTool],
    });

    const requests = [1, 2, 3].map((n) => `Run ${n}: list every record page.`);
    for (const [r, input] of requests.entries()) {
      agentModel.startRun();
      const result = await run(agent, input, {
        session,
        callModelInputFilter,
        maxTurns: pages + 2,
      });
      expect(result.finalOutput).toBe(`listed ${pages} pages`);

      const stored = await session.getItems();
      // The filter's summaries live in the view only: none was stored, so none is folded again.
      expect(stored.filter((i) => text(i).includes('SUMMARY#F'))).toEqual([]);
      // One summary in the store, the session's own, marked.
      const summaries = stored.filter((i) => text(i).includes('SUMMARY#'));
      expect(summaries).toHaveLength(1);
      expect(marked(summaries[0]!)).toBe(true);
      expect(text(summaries[0]!)).toContain(`SUMMARY#S${sessionModel.histRequests.length}`);
      // Each request stored once, verbatim: the first as the head, this run's after the summary.
      const userTexts = stored
        .filter((i) => 'role' in i && i.role === 'user' && !marked(i))
        .map((i) => (i as { content: unknown }).content);
      expect(userTexts).toEqual(r === 0 ? [requests[0]] : [requests[0], input]);
      expect(pairsIntact(stored)).toBe(true);
      expect(text(stored.at(-1)!)).toContain(`listed ${pages} pages`);
    }

    // The filter folded inside the runs and the session folded the store.
    expect(filterModel.histRequests.length).toBeGreaterThan(0);
    expect(sessionModel.histRequests.length).toBeGreaterThan(1);
    // A session fold never reads the filter's summary; each later one reads the session's previous.
    for (const req of sessionModel.histRequests) expect(req).not.toContain('SUMMARY#F');
    sessionModel.histRequests.slice(1).forEach((req, i) => {
      expect(req).toContain(`SUMMARY#S${i + 1}`);
    });
    // Every model call saw at most one summary of each, the session's before the filter's (the
    // filter keeps the session's summary in the head, where it stood), no acon mark, and every
    // result after its call.
    const byRun: { S: number; F: number; request: unknown }[] = [];
    for (const req of agentModel.requests) {
      const items = inputItems(req).map(text);
      const s = items.findIndex((t) => t.includes('SUMMARY#S'));
      const f = items.findIndex((t) => t.includes('SUMMARY#F'));
      expect(items.filter((t) => t.includes('SUMMARY#S')).length).toBeLessThanOrEqual(1);
      expect(items.filter((t) => t.includes('SUMMARY#F')).length).toBeLessThanOrEqual(1);
      if (s !== -1 && f !== -1) expect(s).toBeLessThan(f);
      expect(inputItems(req).some(marked)).toBe(false);
      expect(pairsIntact(inputItems(req))).toBe(true);
      byRun.push({ S: s, F: f, request: f === -1 ? undefined : items[f + 1] });
    }
    // Where the filter folded a later run's view, that run's request follows its summary verbatim.
    const layered = byRun.filter((v) => v.S !== -1 && v.F !== -1);
    expect(layered.length).toBeGreaterThan(0);
    for (const v of layered)
      expect(v.request).toMatch(/"content":"Run [23]: list every record page\."/);
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

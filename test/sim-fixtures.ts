import { isDeepStrictEqual } from 'node:util';
import type { ActResult } from '../src/agent/environment.js';
import type { Episode, ReferencePlan, TaskInfo } from '../src/bench/types.js';
import type { ChatRequest, ChatResult, CallContext, LlmClient, ToolDef } from '../src/llm/types.js';
import type { SimProvider } from '../src/sim/index.js';

/**
 * A tiny hand-built world for the sim tests: log in, search playlists (a long, verbose JSON
 * answer), open the playlist by id, answer with its duration. The plan's needs say which values
 * each step copies, as apptown's resolved reference plans do.
 */
export const TOKEN = 'tk_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
export const PLAYLIST_ID = 48213;
export const ANSWER = '47';

const login = { app: 'supervisor', api: 'login', args: { username: 'ana', password: 'pw-7781' } };
const search = {
  app: 'music',
  api: 'search_playlists',
  args: { access_token: TOKEN, query: 'road' },
};
const show = {
  app: 'music',
  api: 'show_playlist',
  args: { access_token: TOKEN, playlist_id: PLAYLIST_ID },
};

export const PLAN: ReferencePlan = {
  steps: [
    { tool: 'call_api', args: login, needs: [] },
    { tool: 'call_api', args: search, needs: [{ value: TOKEN, fromStep: 0 }] },
    {
      tool: 'call_api',
      args: show,
      needs: [
        { value: TOKEN, fromStep: 0 },
        { value: String(PLAYLIST_ID), fromStep: 1 },
      ],
    },
    {
      tool: 'complete_task',
      args: { answer: ANSWER, status: 'success' },
      needs: [{ value: ANSWER, fromStep: 2 }],
    },
  ],
};

const LOREM =
  'A long hand-picked selection of songs for driving with the windows down, updated every week by the editors';

function playlists() {
  const items = [];
  for (let i = 0; i < 12; i++) {
    const id = i === 3 ? PLAYLIST_ID : 51000 + i * 137;
    items.push({
      id,
      title: i === 3 ? 'Road Trip' : `Road Mix ${i + 1}`,
      description: `${LOREM} (${i + 1}).`,
      owner_id: 60000 + i,
      url: `https://music.example/playlists/${id}`,
      created_at: `2024-05-${String(i + 1).padStart(2, '0')}`,
      song_count: 10 + i,
    });
  }
  return { page_index: 0, page_limit: 12, total_items: 12, items };
}

const OBSERVATIONS: string[] = [
  JSON.stringify({ access_token: TOKEN, token_type: 'bearer', expires_in: 3600 }),
  JSON.stringify(playlists()),
  JSON.stringify({
    id: PLAYLIST_ID,
    title: 'Road Trip',
    description: LOREM,
    songs: [
      { id: 70001, title: 'Open Road', duration_min: 4 },
      { id: 70002, title: 'Highway Lights', duration_min: 5 },
    ],
    total_duration_min: 47,
  }),
];

export const TOOLS: ToolDef[] = [
  {
    type: 'function',
    function: {
      name: 'call_api',
      description: 'Call an app API.',
      parameters: { type: 'object', properties: {} },
    },
  },
  {
    type: 'function',
    function: {
      name: 'complete_task',
      description: 'Finish the task.',
      parameters: { type: 'object', properties: {} },
    },
  },
];

export const TASK_ID = 'fixture-road-trip';

const TASK: TaskInfo = {
  id: TASK_ID,
  split: 'test',
  instruction: 'How many minutes long is my "Road Trip" playlist?',
  apps: ['music'],
  difficulty: 1,
  referenceLength: PLAN.steps.length,
};

/** An episode that answers the plan's exact calls and fails every other call. */
export function fixtureEpisode(): Episode & { calls: unknown[]; answer: string | null } {
  const calls: unknown[] = [];
  let answer: string | null = null;
  return {
    task: TASK,
    systemPrompt: 'You are an agent. Use call_api to use apps and complete_task when done.',
    firstUserMessage: `${TASK.instruction} Log in as ana (password pw-7781).`,
    tools: TOOLS,
    calls,
    get answer() {
      return answer;
    },
    async act(message): Promise<ActResult> {
      const call = message.tool_calls?.[0];
      if (!call) return { messages: [], done: false };
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      calls.push(args);
      if (call.function.name === 'complete_task') {
        answer = String(args.answer);
        return { messages: [{ role: 'tool', tool_call_id: call.id, content: 'ok' }], done: true };
      }
      const index = PLAN.steps.findIndex((s) => isDeepStrictEqual(s.args, args));
      const content =
        index === -1
          ? JSON.stringify({ error: 'not found or not allowed', status: 404 })
          : OBSERVATIONS[index]!;
      return { messages: [{ role: 'tool', tool_call_id: call.id, content }], done: false };
    },
    async evaluate() {
      const ok = answer === ANSWER && calls.some((c) => isDeepStrictEqual(c, show));
      return {
        success: ok,
        score: ok ? 1 : 0,
        details: [{ name: 'answer', passed: ok, detail: `got ${String(answer)}` }],
      };
    },
    async close() {},
  };
}

/** An LlmClient straight onto a provider: no cache, store or limits (the sim needs none). */
export function directClient(provider: SimProvider): LlmClient & { calls: CallContext[] } {
  const calls: CallContext[] = [];
  return {
    calls,
    async chat(req: ChatRequest, ctx: CallContext): Promise<ChatResult> {
      calls.push(ctx);
      const res = await provider.chat({ ...req, model: 'sim', ctx });
      return {
        ...res,
        costUsd: 0,
        cached: false,
        latencyMs: 0,
        provider: 'sim',
        model: 'sim',
        callId: calls.length,
      };
    },
  };
}

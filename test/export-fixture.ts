import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompressionEvent } from '../src/domain/compression-event.js';
import type { CallContext, ChatMessage, ProviderResponse, ToolDef } from '../src/llm/types.js';
import { SqliteRunStore } from '../src/store/run-store.js';

/**
 * A small SQLite run for export tests, written through SqliteRunStore: one `acon` rollout per
 * task (t1–t4 succeed, t5 fails), a `summary` baseline rollout, and the awkward cases an export
 * must handle: a retried compressor call, an answer without its heading, a failed compression
 * event, a provider error, a duplicate call, a very long observation, planted secrets, and
 * agent prompts with tools and a history summary beside the task.
 */
export const FAKE_KEY = 'sk-test-ABCDEFGHIJ1234567890';
export const TASKS = ['t1', 't2', 't3', 't4'] as const;
export const FAILED_TASK = 't5';
export const RUN_ID = 'run-fixture';
const ACON = 'acon[obs-0001,hist-0001]';

const OBS_SYSTEM = 'You compress tool observations.\n<guideline>\nKEEP: id, token\n</guideline>';
const HIST_SYSTEM = 'You compress the interaction history.\n<guideline>\nKEEP: ids\n</guideline>';
const TOOLS: ToolDef[] = [
  {
    type: 'function',
    function: {
      name: 'api_call',
      description: 'Call an app API.',
      parameters: { type: 'object', properties: { app: { type: 'string' } }, required: ['app'] },
    },
  },
];

export type Fixture = { store: SqliteRunStore; dir: string; dbPath: string };

/**
 * `mixed` adds what a clean export must leave out: a dev-split rollout (task d1) and a train
 * rollout of a rejected candidate's guidelines (task t6, obs-0002/hist-0002), each with one
 * history compression.
 */
export function buildFixture(opts: { dir?: string; mixed?: boolean } = {}): Fixture {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'acon-export-'));
  const dbPath = join(dir, 'acon.db');
  const store = new SqliteRunStore(dbPath);
  store.createRun({
    id: RUN_ID,
    kind: 'optimize',
    command: 'acon optimize --bench apptown',
    bench: 'apptown',
    provider: 'sim',
    models: {
      agent: 'sim/sim-agent',
      obs_compressor: 'sim/sim-compressor',
      hist_compressor: 'sim/sim-compressor',
    },
    simulated: true,
    params: {},
    config: {},
  });
  let clock = 0;
  const startedAt = () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString();

  const call = (
    ctx: Omit<CallContext, 'runId'>,
    messages: ChatMessage[],
    answer: ProviderResponse['message'] | null,
    extra: { tools?: ToolDef[]; error?: string } = {},
  ): number =>
    store.recordCall({
      ctx: { runId: RUN_ID, ...ctx },
      provider: 'sim',
      model: ctx.role === 'agent' ? 'sim-agent' : 'sim-compressor',
      requestHash: `h${clock++}`,
      request: { messages, model: 'sim', ...(extra.tools ? { tools: extra.tools } : {}) },
      response: answer
        ? {
            message: answer,
            usage: { promptTokens: 10, cachedPromptTokens: 0, completionTokens: 5 },
          }
        : null,
      usage: { promptTokens: 10, cachedPromptTokens: 0, completionTokens: 5 },
      costUsd: 0,
      latencyMs: 1,
      cached: false,
      error: extra.error ?? null,
    });

  const obsCall = (
    rolloutId: string,
    taskId: string,
    step: number,
    input: string,
    output: string | null,
  ) =>
    call(
      { role: 'obs_compressor', rolloutId, taskId, step },
      [
        { role: 'system', content: OBS_SYSTEM },
        {
          role: 'user',
          content: `<task>${taskId}</task>\n<observation>\n${input}\n</observation>`,
        },
      ],
      { role: 'assistant', content: output },
    );

  const save = (
    rolloutId: string,
    taskId: string,
    condition: string,
    strategy: string,
    success: boolean,
    events: CompressionEvent[],
    where: { split?: string; obs?: string; hist?: string } = {},
  ) =>
    store.saveRollout({
      id: rolloutId,
      runId: RUN_ID,
      condition,
      taskId,
      split: where.split ?? 'train',
      strategy,
      guidelineObs: where.obs ?? 'obs-0001',
      guidelineHist: where.hist ?? 'hist-0001',
      status: 'completed',
      evaluation: { success, score: success ? 1 : 0, details: [] },
      metrics: {
        success,
        score: success ? 1 : 0,
        steps: 4,
        peakInputTokens: 100,
        peakPromptTokens: null,
        byRole: {},
        costUsd: 0,
        fullCostUsd: null,
        dependency: null,
        compressionEvents: events.length,
        failedCompressions: events.filter((e) => e.failed).length,
        reactiveEvents: 0,
        tokensSaved: 0,
        wallMs: 1,
      },
      trajectory: { system: 'sys', task: taskId, turns: [] },
      steps: [],
      events,
      error: null,
      startedAt: startedAt(),
      finishedAt: startedAt(),
    });

  const event = (
    callId: number,
    step: number,
    failed: boolean,
    kind: 'obs' | 'hist' = 'obs',
  ): CompressionEvent => ({
    kind,
    step,
    inputTokens: 10,
    outputTokens: 5,
    input: 'in',
    output: 'out',
    guidelineId: `${kind}-0001`,
    callId,
    failed,
  });

  for (const taskId of [...TASKS, FAILED_TASK]) {
    const rid = `r-${taskId}`;
    const events: CompressionEvent[] = [];
    // Step 1: an ordinary observation compression.
    const c1 = obsCall(
      rid,
      taskId,
      1,
      `{"id": 1, "task": "${taskId}", "items": [1, 2, 3]}`,
      `# Refined Observation\n{"id": 1, "task": "${taskId}"}`,
    );
    events.push(event(c1, 1, false));

    if (taskId === 't1') {
      // A leaked key and header in the observation, and the teacher echoing the key.
      const c = obsCall(
        rid,
        taskId,
        2,
        `login ok\nAuthorization: Bearer eyJhbGciOi.secret.token\n{"api_key": "${FAKE_KEY}"}`,
        `# Refined Observation\naccess key ${FAKE_KEY}`,
      );
      events.push(event(c, 2, false));
    }
    if (taskId === 't2') {
      // An answer without the heading, then the retry that got it right.
      const bad = obsCall(rid, taskId, 2, 'page 2 of songs', 'Here are the songs.');
      const retry = call(
        { role: 'obs_compressor', rolloutId: rid, taskId, step: 2 },
        [
          { role: 'system', content: OBS_SYSTEM },
          {
            role: 'user',
            content: `<task>${taskId}</task>\n<observation>\npage 2 of songs\n</observation>`,
          },
          { role: 'assistant', content: 'Here are the songs.' },
          { role: 'user', content: 'Your answer lacks the "# Refined Observation" heading.' },
        ],
        { role: 'assistant', content: '# Refined Observation\nsongs: 7, 9' },
      );
      void bad;
      events.push(event(retry, 2, false));
      // A duplicate of step 1 (same prompt, same answer: e.g. served from the cache).
      obsCall(
        rid,
        taskId,
        3,
        `{"id": 1, "task": "${taskId}", "items": [1, 2, 3]}`,
        `# Refined Observation\n{"id": 1, "task": "${taskId}"}`,
      );
      // A provider error.
      call(
        { role: 'obs_compressor', rolloutId: rid, taskId, step: 4 },
        [
          { role: 'system', content: OBS_SYSTEM },
          { role: 'user', content: 'x' },
        ],
        null,
        { error: 'HTTP 500' },
      );
    }
    if (taskId === 't3') {
      // A very long observation (thousands of tokens).
      const long = Array.from(
        { length: 600 },
        (_, i) => `{"song_id": ${i}, "title": "Song number ${i}"}`,
      ).join('\n');
      const c = obsCall(rid, taskId, 2, long, '# Refined Observation\nsong ids 0-599');
      events.push(event(c, 2, false));
    }
    if (taskId === 't4') {
      // A compression that failed after its retries: the original text was kept.
      const c = obsCall(rid, taskId, 2, 'messy output', 'I cannot compress this.');
      events.push(event(c, 2, true));
    }

    // Step 3: a history compression.
    const h = call(
      { role: 'hist_compressor', rolloutId: rid, taskId, step: 3 },
      [
        { role: 'system', content: HIST_SYSTEM },
        {
          role: 'user',
          content: `<task>${taskId}</task>\n<history>\nturns of ${taskId}\n</history>`,
        },
      ],
      { role: 'assistant', content: `# History Summary\nDid steps 1-2 of ${taskId}.` },
    );
    events.push(event(h, 3, false, 'hist'));

    // Agent steps: 0 (first call), 1 (after a tool result), 3 (task + summary side by side).
    const sys: ChatMessage = { role: 'system', content: 'You are an agent. Use the tools.' };
    const task: ChatMessage = { role: 'user', content: `Task ${taskId}: pay the bill.` };
    const tc = (id: string) => ({
      id,
      type: 'function' as const,
      function: { name: 'api_call', arguments: `{"app":"wallet","step":"${id}"}` },
    });
    call(
      { role: 'agent', rolloutId: rid, taskId, step: 0 },
      [sys, task],
      { role: 'assistant', content: null, tool_calls: [tc('c0')] },
      { tools: TOOLS },
    );
    call(
      { role: 'agent', rolloutId: rid, taskId, step: 1 },
      [
        sys,
        task,
        { role: 'assistant', content: null, tool_calls: [tc('c0')] },
        { role: 'tool', tool_call_id: 'c0', content: `balance of ${taskId}: 12` },
      ],
      { role: 'assistant', content: 'Paying now.', tool_calls: [tc('c1')] },
      { tools: TOOLS },
    );
    // An answer without a tool call to a prompt with tools: malformed.
    call(
      { role: 'agent', rolloutId: rid, taskId, step: 2 },
      [sys, task],
      { role: 'assistant', content: 'I am done?' },
      { tools: TOOLS },
    );
    call(
      { role: 'agent', rolloutId: rid, taskId, step: 3 },
      [
        sys,
        task,
        { role: 'user', content: `Summary of turns 1-2 of ${taskId}.` },
        { role: 'assistant', content: null, tool_calls: [tc('c2')] },
        { role: 'tool', tool_call_id: 'c2', content: 'ok' },
      ],
      { role: 'assistant', content: null, tool_calls: [tc('c3')] },
      { tools: TOOLS },
    );

    save(rid, taskId, ACON, 'acon', taskId !== FAILED_TASK, events);
  }

  // The LLM-summary baseline also records hist_compressor calls; they are not exported by default.
  const sid = 'r-t1-summary';
  const sc = call(
    { role: 'hist_compressor', rolloutId: sid, taskId: 't1', step: 3 },
    [
      { role: 'system', content: 'You maintain the memory of an autonomous agent.' },
      { role: 'user', content: 'turns of t1 (summary baseline)' },
    ],
    { role: 'assistant', content: '# History Summary\nUSER_CONTEXT: pay the bill' },
  );
  save(sid, 't1', 'summary', 'summary', true, [event(sc, 3, false, 'hist')]);
  if (opts.mixed) {
    const extra = (
      rid: string,
      taskId: string,
      condition: string,
      where: { split?: string; obs?: string; hist?: string },
    ) => {
      const c = call(
        { role: 'hist_compressor', rolloutId: rid, taskId, step: 3 },
        [
          { role: 'system', content: HIST_SYSTEM },
          {
            role: 'user',
            content: `<task>${taskId}</task>\n<history>\nturns of ${taskId}\n</history>`,
          },
        ],
        { role: 'assistant', content: `# History Summary\nDid steps 1-2 of ${taskId}.` },
      );
      save(rid, taskId, condition, 'acon', true, [event(c, 3, false, 'hist')], where);
    };
    extra('r-d1', 'd1', ACON, { split: 'dev' });
    extra('r-t6', 't6', 'acon[obs-0002,hist-0002]', { obs: 'obs-0002', hist: 'hist-0002' });
  }
  // As `acon optimize` records it: the final versions are the export's default guidelines.
  store.setRunStatus(RUN_ID, 'finished', { final: { obs: 'obs-0001', hist: 'hist-0001' } });
  return { store, dir, dbPath };
}

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepRecord } from '../domain/step.js';
import type { Trajectory } from '../domain/trajectory.js';
import type { CallRecord } from '../llm/call-store.js';
import type { ChatMessage, ToolDef } from '../llm/types.js';
import type { BlobCompression } from './blobs.js';
import { SqliteRunStore, type FinishedRollout } from './run-store.js';

const RUN = 'run-roundtrip';
const NEW_RUN = {
  id: RUN,
  kind: 'run',
  command: 'test',
  bench: 'apptown',
  provider: 'sim',
  models: { agent: 'sim/sim-agent' },
  simulated: true,
  params: {},
  config: {},
};
const TOOLS: ToolDef[] = [
  {
    type: 'function',
    function: {
      name: 'call_api',
      description: 'Calls an app API.',
      parameters: { type: 'object', properties: { app: { type: 'string' } }, required: ['app'] },
    },
  },
];

/** Observations long enough to be compressed, with text JSON escaping touches. */
function observation(i: number): string {
  const items = Array.from({ length: 40 }, (_, j) => ({
    id: `song-${i}-${j}`,
    title: `Título "${j}" \u2014 ü\tß\n😀`,
    plays: j * 1000 + i,
  }));
  return JSON.stringify({ page: i, items }, null, 2);
}

function trajectoryOf(turns: number): Trajectory {
  return {
    system: 'You are an agent. Use the tools.\n'.repeat(20),
    task: 'Find the most played song and like it.',
    turns: Array.from({ length: turns }, (_, i) => ({
      assistant: {
        role: 'assistant' as const,
        content: i % 2 === 0 ? null : `step ${i}`,
        tool_calls: [
          {
            id: `call_${i}`,
            type: 'function' as const,
            function: { name: 'call_api', arguments: `{"app":"music","page":${i}}` },
          },
        ],
      },
      observations: [{ role: 'tool' as const, tool_call_id: `call_${i}`, content: observation(i) }],
    })),
  };
}

/** The prompt of step `i` under the raw strategy: everything so far. */
function promptAt(t: Trajectory, i: number): ChatMessage[] {
  return [
    { role: 'system', content: t.system },
    { role: 'user', content: t.task },
    ...t.turns.slice(0, i).flatMap((turn) => [turn.assistant, ...turn.observations]),
  ];
}

function call(
  store: SqliteRunStore,
  rolloutId: string,
  i: number,
  t: Trajectory,
  runId = RUN,
): CallRecord {
  const record: CallRecord = {
    ctx: { role: 'agent', runId, rolloutId, taskId: 'task-1', step: i },
    provider: 'sim',
    model: 'sim-agent',
    requestHash: `hash-${rolloutId}-${i}`,
    request: { messages: promptAt(t, i), tools: TOOLS, model: 'sim-agent', seed: 7 },
    response: {
      message: t.turns[i]!.assistant,
      usage: { promptTokens: 100 + i, cachedPromptTokens: 0, completionTokens: 5 },
    },
    usage: { promptTokens: 100 + i, cachedPromptTokens: 0, completionTokens: 5 },
    costUsd: 0,
    latencyMs: 3,
    cached: false,
    error: null,
  };
  store.recordCall(record);
  return record;
}

function rollout(id: string, t: Trajectory, callIds: number[]): FinishedRollout {
  const steps: StepRecord[] = t.turns.map((turn, i) => ({
    index: i,
    prompt: promptAt(t, i),
    promptTokens: 100 + i,
    assistant: turn.assistant,
    toolCall: turn.assistant.tool_calls![0]!,
    observations: turn.observations,
    observationTokens: 50,
    latencyMs: 3,
    callId: callIds[i]!,
    reactive: false,
    malformed: false,
  }));
  return {
    id,
    runId: RUN,
    condition: 'raw',
    taskId: 'task-1',
    split: 'dev',
    strategy: 'raw',
    guidelineObs: null,
    guidelineHist: null,
    status: 'completed',
    evaluation: { success: true, score: 1, details: [] },
    metrics: {
      success: true,
      score: 1,
      steps: steps.length,
      peakInputTokens: 200,
      peakPromptTokens: null,
      byRole: {},
      costUsd: 0,
      fullCostUsd: null,
      dependency: null,
      compressionEvents: 1,
      failedCompressions: 0,
      tokensSaved: 10,
      wallMs: 5,
    },
    trajectory: t,
    steps,
    events: [
      {
        kind: 'obs',
        step: 2,
        inputTokens: 500,
        outputTokens: 50,
        input: observation(1),
        output: 'songs: 40, most played: song-1-39',
        guidelineId: 'obs-0000',
        callId: null,
        failed: false,
      },
    ],
    error: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
  };
}

describe('SqliteRunStore', () => {
  const stores: SqliteRunStore[] = [];
  afterEach(() => {
    for (const s of stores.splice(0)) s.close();
  });

  function open(compression?: BlobCompression): SqliteRunStore {
    const dir = mkdtempSync(join(tmpdir(), 'acon-store-'));
    const store = new SqliteRunStore(join(dir, 'acon.db'), { compression });
    stores.push(store);
    store.createRun(NEW_RUN);
    return store;
  }

  it.each(['none', 'deflate', 'brotli'] as const)(
    'reads back a stored trajectory, its steps, events and calls byte for byte (%s)',
    (compression) => {
      const store = open(compression);
      const t = trajectoryOf(6);
      const records = t.turns.map((_, i) => call(store, 'r1', i, t));
      const ids = store.calls({ rolloutId: 'r1' }).map((c) => c.id);
      const written = rollout('r1', t, ids);
      store.saveRollout(written);

      expect(JSON.stringify(store.trajectory('r1'))).toBe(JSON.stringify(t));
      expect(store.trajectory('r1')).toEqual(t);
      expect(store.trajectoryHead('r1')).toEqual({ system: t.system, task: t.task });
      const steps = store.steps('r1');
      expect(steps.map((s) => s.prompt)).toEqual(
        written.steps.map((s) => JSON.stringify(s.prompt)),
      );
      expect(steps.map((s) => s.assistant)).toEqual(
        written.steps.map((s) => JSON.stringify(s.assistant)),
      );
      expect(steps.map((s) => s.observations)).toEqual(
        written.steps.map((s) => JSON.stringify(s.observations)),
      );
      expect(store.stepActions('r1')).toEqual(steps.map(({ prompt: _, ...rest }) => rest));
      expect(store.events('r1')).toEqual(written.events);
      const calls = store.calls({ runId: RUN, role: 'agent' });
      expect(calls.map((c) => c.request)).toEqual(records.map((r) => JSON.stringify(r.request)));
      expect(calls.map((c) => c.response)).toEqual(records.map((r) => JSON.stringify(r.response)));
      expect(store.countCalls({ rolloutId: 'r1', role: 'agent' })).toBe(6);
    },
  );

  it('reads back calls and trajectories that differ from the common shape byte for byte', () => {
    const store = open();
    const t = trajectoryOf(4);
    const records = t.turns.map((_, i) => call(store, 'r1', i, t));
    // A response with more than {message, usage}, a real SHA-256 request hash, and a failed call.
    const unusual: CallRecord = {
      ...records[0]!,
      requestHash: 'ab'.repeat(32),
      request: { model: 'sim-agent', messages: promptAt(t, 1), temperature: 0 },
      response: {
        message: t.turns[1]!.assistant,
        usage: { promptTokens: 7, cachedPromptTokens: 1, completionTokens: 2 },
        finish: 'stop',
      } as unknown as CallRecord['response'],
      usage: { promptTokens: 7, cachedPromptTokens: 1, completionTokens: 2 },
    };
    const failed: CallRecord = { ...records[1]!, response: null, error: 'HTTP 500' };
    store.recordCall(unusual);
    store.recordCall(failed);
    const calls = store.calls({ rolloutId: 'r1' });
    expect(calls.map((c) => [c.requestHash, c.request, c.response, c.error])).toEqual(
      [...records, unusual, failed].map((r) => [
        r.requestHash,
        JSON.stringify(r.request),
        r.response && JSON.stringify(r.response),
        r.error,
      ]),
    );
    expect(calls.every((c) => !Number.isNaN(Date.parse(c.createdAt)))).toBe(true);

    // The history keeps less than the model said at turn 2 (as AppWorld cuts an answer): that
    // turn cannot be read from its step and is stored in full.
    const cut = structuredClone(t);
    cut.turns[2]!.assistant = { ...cut.turns[2]!.assistant, content: 'cut' };
    const written = { ...rollout('r1', t, [1, 2, 3, 4]), trajectory: cut };
    store.saveRollout(written);
    expect(JSON.stringify(store.trajectory('r1'))).toBe(JSON.stringify(cut));
    expect(store.steps('r1').map((s) => s.assistant)).toEqual(
      t.turns.map((turn) => JSON.stringify(turn.assistant)),
    );

    // A step's prompt is kept once with its agent call; a step whose call sent other messages
    // keeps its own.
    const unusualId = calls.find((c) => c.requestHash === unusual.requestHash)!.id;
    const other = rollout('r2', t, [unusualId, unusualId, unusualId, unusualId]);
    store.saveRollout({ ...other, taskId: 'task-2' });
    expect(store.steps('r2').map((s) => s.prompt)).toEqual(
      other.steps.map((s) => JSON.stringify(s.prompt)),
    );
  });

  it('stores each distinct message once, so storage grows with new content, not prompt length', () => {
    const store = open('none');
    const sizes: number[] = [];
    for (const turns of [4, 8, 16]) {
      const t = trajectoryOf(turns);
      const id = `r${turns}`;
      const ids = t.turns.map((_, i) => call(store, id, i, t)).map(() => 0);
      store.saveRollout({ ...rollout(id, t, ids), taskId: id });
      sizes.push(store.storageStats().textBytes);
    }
    // Each longer rollout repeats the shorter one's turns: only the new turns are added, so
    // the texts stored after 16 turns are far less than the 16 prompts written out in full.
    const t16 = trajectoryOf(16);
    const fullPrompts = t16.turns.reduce(
      (n, _, i) => n + JSON.stringify(promptAt(t16, i)).length,
      0,
    );
    expect(sizes[2]!).toBeLessThan(fullPrompts / 4);
    const perTurn = (sizes[2]! - sizes[1]!) / 8;
    expect(perTurn).toBeLessThan(JSON.stringify(t16.turns[15]).length * 1.5);
  });

  it('keeps a rolled-back rollout from leaving references to missing blobs', () => {
    const store = open();
    const t = trajectoryOf(2);
    store.saveRollout(rollout('r1', t, [0, 0]));
    const changed: Trajectory = { ...t, task: 'another task text' };
    // Same id again: the insert fails inside the transaction and every blob write is undone.
    expect(() => store.saveRollout(rollout('r1', changed, [0, 0]))).toThrow();
    store.saveRollout({ ...rollout('r2', changed, [0, 0]), taskId: 'task-2' });
    expect(store.trajectory('r2')).toEqual(changed);
  });

  it('deletes the texts only a deleted run used and keeps those another run shares', () => {
    const store = open();
    const shared = trajectoryOf(3);
    store.saveRollout(rollout('r1', shared, [0, 0, 0]));
    store.createRun({ ...NEW_RUN, id: 'run-other' });
    const own: Trajectory = { ...trajectoryOf(5), task: 'a task only the other run has' };
    own.turns.forEach((_, i) => call(store, 'r2', i, own, 'run-other'));
    store.saveRollout({ ...rollout('r2', own, [0, 0, 0, 0, 0]), runId: 'run-other' });
    const before = store.storageStats().blobs;

    expect(store.deleteRun('run-other')).toEqual({ rollouts: 1, calls: 5 });
    const after = store.storageStats().blobs;
    expect(after).toBeLessThan(before);
    expect(store.trajectory('r1')).toEqual(shared);
    expect(store.steps('r1')).toHaveLength(3);
    // Writing the deleted texts again stores them again (nothing believes they still exist).
    store.saveRollout({ ...rollout('r3', own, [0, 0, 0, 0, 0]), taskId: 'task-3' });
    expect(store.trajectory('r3')).toEqual(own);
  });

  it('keeps the texts of a deleted run that deltas of another run are built on', () => {
    const store = open();
    const summary = (v: number) =>
      Array.from({ length: 20 + v }, (_, i) => `- fact ${i}: amount=${i * 3}.50 | ok`).join('\n');
    const withEvents = (id: string, versions: number[]): FinishedRollout => {
      const r = rollout(id, trajectoryOf(1), [0]);
      return {
        ...r,
        taskId: id,
        events: versions.map((v) => ({
          ...r.events[0]!,
          kind: 'hist' as const,
          output: summary(v),
        })),
      };
    };
    store.createRun({ ...NEW_RUN, id: 'run-first' });
    store.saveRollout({ ...withEvents('r1', [1, 2, 3]), runId: 'run-first' });
    store.saveRollout(withEvents('r2', [4]));
    expect(store.storageStats().blobs).toBeGreaterThan(0);
    store.deleteRun('run-first');
    expect(store.events('r2').map((e) => e.output)).toEqual([summary(4)]);
  });
});

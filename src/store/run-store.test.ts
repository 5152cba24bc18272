import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepRecord } from '../domain/step.js';
import type { Trajectory } from '../domain/trajectory.js';
import type { CallRecord } from '../llm/call-store.js';
import type { ChatMessage, ToolDef } from '../llm/types.js';
import Database from 'better-sqlite3';
import { compress } from './document.js';
import { hashKey } from './call-log.js';
import { SqliteRunStore, type FinishedRollout } from './run-store.js';
import { simRun } from '../../test/helpers/store.js';

const RUN = 'run-roundtrip';
const NEW_RUN = simRun(RUN, { models: { agent: 'sim/sim-agent' } });
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
    evaluation: {
      success: true,
      score: 1,
      details: [{ name: 'answer', passed: true, detail: 'expected "3", got "3"' }],
    },
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
      reactiveEvents: 0,
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

  function open(): SqliteRunStore {
    const dir = mkdtempSync(join(tmpdir(), 'acon-store-'));
    const store = new SqliteRunStore(join(dir, 'acon.db'));
    stores.push(store);
    store.createRun(NEW_RUN);
    return store;
  }

  it.each([false, true])(
    'reads back a stored trajectory, its steps, events and calls byte for byte (reopened: %s)',
    (reopen) => {
      let store = open();
      const t = trajectoryOf(6);
      const records = t.turns.map((_, i) => call(store, 'r1', i, t));
      const ids = store.calls({ rolloutId: 'r1' }).map((c) => c.id);
      const written = rollout('r1', t, ids);
      store.saveRollout(written);
      if (reopen) {
        store = new SqliteRunStore(store.path);
        stores.push(store);
      }

      expect(JSON.stringify(store.trajectory('r1'))).toBe(JSON.stringify(t));
      expect(store.trajectory('r1')).toEqual(t);
      expect(store.trajectoryHead('r1')).toEqual({ system: t.system, task: t.task });
      expect(store.prompts('r1')).toEqual(written.steps.map((s) => s.prompt));
      expect(store.stepRecords('r1')).toEqual(written.steps.map(({ prompt: _, ...s }) => s));
      expect(store.events('r1')).toEqual(written.events);
      expect(store.rollout('r1').evaluation).toEqual(written.evaluation);
      const calls = store.calls({ runId: RUN, role: 'agent' });
      expect(calls.map((c) => c.request)).toEqual(records.map((r) => JSON.stringify(r.request)));
      expect(calls.map((c) => c.response)).toEqual(records.map((r) => JSON.stringify(r.response)));
      expect(store.calls({ rolloutId: 'r1', role: 'agent' }).length).toBe(6);
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
        hashKey(r.requestHash).toString('hex'),
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
    expect(store.stepRecords('r1').map((s) => s.assistant)).toEqual(
      t.turns.map((turn) => turn.assistant),
    );

    // A step's prompt is kept once with its agent call; a step whose call sent other messages
    // keeps its own.
    const unusualId = calls.find((c) => c.requestHash === 'ab'.repeat(16))!.id;
    const other = rollout('r2', t, [unusualId, unusualId, unusualId, unusualId]);
    store.saveRollout({ ...other, taskId: 'task-2' });
    expect(store.prompts('r2')).toEqual(other.steps.map((s) => s.prompt));
  });

  it('stores a rollout as one compressed document, its agent requests once, as the prompts', () => {
    const store = open();
    const t = trajectoryOf(16);
    t.turns.forEach((_, i) => call(store, 'r1', i, t));
    store.saveRollout(
      rollout(
        'r1',
        t,
        store.calls({ rolloutId: 'r1' }).map((c) => c.id),
      ),
    );
    const prompts = t.turns.reduce((n, _, i) => n + JSON.stringify(promptAt(t, i)).length, 0);
    const stats = store.storageStats();
    expect(stats.documents).toBe(1);
    // The calls' messages are not written a second time beside the prompts.
    expect(stats.textBytes).toBeLessThan(prompts * 1.5);
    // Each prompt repeats the one before it: brotli's window finds the repeats.
    expect(stats.storedBytes).toBeLessThan(prompts / 20);
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

  it('deletes a run with its documents, calls and cache entries and keeps the other run whole', () => {
    const store = open();
    const shared = trajectoryOf(3);
    const kept = shared.turns.map((_, i) => call(store, 'r1', i, shared));
    store.saveRollout(rollout('r1', shared, [1, 2, 3]));
    store.createRun({ ...NEW_RUN, id: 'run-other' });
    const own: Trajectory = { ...trajectoryOf(5), task: 'a task only the other run has' };
    const records = own.turns.map((_, i) => ({ ...call(store, 'r2', i, own, 'run-other') }));
    cache(store, { ...records[0]!, requestHash: 'cached-by-the-other-run' });
    store.saveRollout({ ...rollout('r2', own, [0, 0, 0, 0, 0]), runId: 'run-other' });
    const callsBefore = store.calls({ runId: RUN });
    expect(store.getCached('cached-by-the-other-run')).toEqual(records[0]!.response);

    expect(store.deleteRun('run-other')).toEqual({ rollouts: 1, calls: 6 });
    expect(store.storageStats().documents).toBe(1);
    expect(store.getCached('cached-by-the-other-run')).toBeUndefined();
    expect(store.trajectory('r1')).toEqual(shared);
    expect(store.prompts('r1')).toHaveLength(3);
    expect(store.calls({ runId: RUN })).toEqual(callsBefore);
    expect(callsBefore.map((c) => c.request)).toEqual(kept.map((r) => JSON.stringify(r.request)));
    const db = new Database(store.path, { readonly: true });
    for (const table of ['calls', 'journal', 'llm_cache', 'docs', 'rollout_ids']) {
      const left = db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
      expect(left, table).toBe(
        table === 'calls' ? 3 : table === 'journal' || table === 'llm_cache' ? 0 : 1,
      );
    }
    db.close();
  });

  it('answers the call cache from the journal, then from the document, and after a kill', () => {
    let store = open();
    const t = trajectoryOf(2);
    const first = cache(store, { ...call(store, 'r1', 0, t), requestHash: 'a'.repeat(64) });
    expect(store.getCached('a'.repeat(64))).toEqual(first.response);
    // Simulated calls are recorded without putCached: they never answer from the cache.
    expect(store.getCached(`hash-r1-0`)).toBeUndefined();
    expect(store.getCached('b'.repeat(64))).toBeUndefined();
    // A killed process: the rollout was never saved, its calls are in the journal.
    store.close();
    store = new SqliteRunStore(store.path);
    stores.push(store);
    expect(store.getCached('a'.repeat(64))).toEqual(first.response);
    expect(store.calls({ rolloutId: 'r1' }).map((c) => c.request)).toEqual([
      JSON.stringify(first.request),
      JSON.stringify(first.request),
    ]);
    // The run stops: the journal's calls move to a run document and still answer.
    store.setRunStatus(RUN, 'interrupted');
    expect(store.getCached('a'.repeat(64))).toEqual(first.response);
    const db = new Database(store.path, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) FROM journal').pluck().get()).toBe(0);
    db.close();
  });

  it("writes to the journal only what is new since the rollout's previous call", () => {
    const store = open();
    const t = trajectoryOf(16);
    t.turns.forEach((_, i) => call(store, 'r1', i, t));
    const db = new Database(store.path, { readonly: true });
    const rows = db.prepare('SELECT data FROM journal ORDER BY call').pluck().all() as string[];
    db.close();
    const last = JSON.stringify(promptAt(t, 15)).length;
    // Whole requests would be eight times the last one; each turn is written once.
    expect(rows.reduce((n, r) => n + r.length, 0)).toBeLessThan(last * 1.3);
    expect(rows[15]!.length).toBeLessThan(last / 8);
  });

  it('reads a journal written by two processes and by schema 2, and files it whole', () => {
    let store = open();
    const t = trajectoryOf(6);
    const records = [0, 1, 2].map((i) => call(store, 'r1', i, t));
    store.close();
    // Schema 2 wrote each call whole and compressed: the first process was that acon.
    const db = new Database(store.path);
    records.forEach(({ requestHash, request, response }, i) => {
      const old = { requestHash, taskId: 'task-1', createdAt: 1, request, response };
      const data = compress(JSON.stringify(old));
      db.prepare('UPDATE journal SET data = ? WHERE call = ?').run(data, i + 1);
    });
    db.close();
    store = new SqliteRunStore(store.path);
    stores.push(store);
    records.push(...[3, 4].map((i) => call(store, 'r1', i, t)));
    store.close();
    store = new SqliteRunStore(store.path);
    stores.push(store);
    records.push(call(store, 'r1', 5, t));
    const requests = records.map((r) => JSON.stringify(r.request));
    expect(store.calls({ rolloutId: 'r1' }).map((c) => c.request)).toEqual(requests);
    store.close();
    store = new SqliteRunStore(store.path);
    stores.push(store);
    expect(store.calls({ rolloutId: 'r1' }).map((c) => c.request)).toEqual(requests);
    store.saveRollout(rollout('r1', t, [1, 2, 3, 4, 5, 6]));
    expect(store.calls({ rolloutId: 'r1' }).map((c) => c.request)).toEqual(requests);
    expect(store.trajectory('r1')).toEqual(t);
  });

  it('sums by role only the calls no finished rollout holds: outside rollouts and of unfinished ones', () => {
    const store = open();
    const t = trajectoryOf(3);
    const done = t.turns.map((_, i) => call(store, 'r1', i, t));
    store.saveRollout(
      rollout(
        'r1',
        t,
        store.calls({ rolloutId: 'r1' }).map((c) => c.id),
      ),
    );
    call(store, 'r2', 0, t); // a rollout that never finished
    store.recordCall({
      ...done[0]!,
      ctx: { role: 'analyzer', runId: RUN, taskId: 'task-1' },
      requestHash: 'analysis-1',
      usage: {
        promptTokens: 900,
        cachedPromptTokens: 0,
        completionTokens: 40,
        reasoningTokens: 32,
      },
      costUsd: 0.25,
    });
    const other = 'run-other';
    store.createRun({ ...NEW_RUN, id: other });
    store.recordCall({ ...done[0]!, ctx: { role: 'updater', runId: other }, requestHash: 'u' });
    expect(store.usageOutsideRollouts(RUN)).toEqual([
      {
        role: 'agent',
        calls: 1,
        inputTokens: 100,
        cachedTokens: 0,
        outputTokens: 5,
        reasoningTokens: 0,
        costUsd: 0,
      },
      {
        role: 'analyzer',
        calls: 1,
        inputTokens: 900,
        cachedTokens: 0,
        outputTokens: 40,
        // Of the output: a reasoning analyzer's hidden tokens, stored in calls.reasoning_tokens.
        reasoningTokens: 32,
        costUsd: 0.25,
      },
    ]);
  });

  it('moves the calls made outside rollouts to a run document at each checkpoint', () => {
    const store = open();
    const t = trajectoryOf(1);
    const agent = call(store, 'r1', 0, t);
    const analyzer = (i: number): CallRecord => ({
      ...agent,
      ctx: { role: 'analyzer', runId: RUN, taskId: `task-${i}` },
      requestHash: `analysis-${i}`,
    });
    store.recordCall(analyzer(1));
    store.setState(RUN, 'stage-1', { done: true });
    store.recordCall(analyzer(2));
    const db = new Database(store.path, { readonly: true });
    const journal = () => db.prepare('SELECT COUNT(*) FROM journal').pluck().get();
    // The rollout's call stays in the journal until its rollout is saved.
    expect(journal()).toBe(2);
    expect(store.storageStats().documents).toBe(1);
    store.setRunStatus(RUN, 'finished');
    expect(journal()).toBe(0);
    expect(store.storageStats().documents).toBe(2);
    expect(store.calls({ runId: RUN, role: 'analyzer' }).map((c) => c.taskId)).toEqual([
      'task-1',
      'task-2',
    ]);
    db.close();
  });
});

/** Records a call whose fresh answer goes to the call cache (as the LLM client does). */
function cache(store: SqliteRunStore, record: CallRecord): CallRecord {
  store.putCached(record.requestHash, record.provider, record.model, record.response!);
  store.recordCall(record);
  return record;
}

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallRecord } from '../llm/call-store.js';
import { SqliteRunStore } from './run-store.js';
import { simRun } from '../../test/helpers/store.js';

const RUN = 'run-batch';
const stores: SqliteRunStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function open(path = join(mkdtempSync(join(tmpdir(), 'acon-batch-')), 'acon.db')) {
  const store = new SqliteRunStore(path, { groupCommit: true });
  stores.push(store);
  return store;
}

function start(store: SqliteRunStore) {
  store.createRun(simRun(RUN));
}

/** Call `step` of a rollout whose prompt grows by one message a step. */
function record(store: SqliteRunStore, rolloutId: string, step: number): number {
  const messages = Array.from({ length: step + 1 }, (_, i) => ({
    role: 'user' as const,
    content: `${rolloutId} message ${i}`,
  }));
  const call: CallRecord = {
    ctx: { role: 'agent', runId: RUN, rolloutId, taskId: 't', step },
    provider: 'sim',
    model: 'm',
    requestHash: `hash-${rolloutId}-${step}`,
    request: { messages, model: 'm' },
    response: {
      message: { role: 'assistant', content: `answer ${step}` },
      usage: { promptTokens: 1, cachedPromptTokens: 0, completionTokens: 1 },
    },
    usage: { promptTokens: 1, cachedPromptTokens: 0, completionTokens: 1 },
    costUsd: 0,
    latencyMs: 1,
    cached: false,
    error: null,
  };
  return store.recordCall(call);
}

/** Calls another connection sees: what is committed. */
function committedCalls(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM calls').pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('SqliteRunStore with groupCommit', () => {
  it('commits the calls recorded in one event-loop turn together, a turn later', async () => {
    const store = open();
    start(store);
    expect(store.committed()).toBeUndefined();
    record(store, 'r1', 0);
    record(store, 'r2', 0);
    record(store, 'r1', 1);
    const done = store.committed();
    expect(done).toBeDefined();
    expect(committedCalls(store.path)).toBe(0);
    await done;
    expect(committedCalls(store.path)).toBe(3);
    expect(store.committed()).toBeUndefined();
    expect(store.calls({ rolloutId: 'r1' })).toHaveLength(2);
  });

  it('takes into the batch the calls of code resumed by an immediate queued after it opened', async () => {
    // agent/loop.ts: a rollout whose step did not let the event loop go round yields with
    // setImmediate before its next call; that call joins the batch its neighbours opened
    // (committed after one turn, it took a batch of its own).
    const store = open();
    start(store);
    record(store, 'r1', 0);
    const first = store.committed();
    const joined = await new Promise<boolean>((resolve) =>
      setImmediate(() => {
        record(store, 'r2', 0);
        resolve(store.committed() === first);
      }),
    );
    expect(joined).toBe(true);
    await first;
    expect(committedCalls(store.path)).toBe(2);
  });

  it('commits the open calls before any other write', () => {
    const store = open();
    start(store);
    record(store, 'r1', 0);
    store.setState(RUN, 'checkpoint', 1);
    expect(committedCalls(store.path)).toBe(1);
    expect(store.committed()).toBeUndefined();
  });

  it('forgets the calls of a turn SQLite rolled back and tells those waiting', async () => {
    const store = open();
    start(store);
    record(store, 'r1', 0);
    await store.committed();
    record(store, 'r1', 1);
    record(store, 'r2', 0);
    const lost = store.committed();
    // What a full disk can do: SQLite ends the transaction itself.
    (store as unknown as { s: { db: Database.Database } }).s.db.exec('ROLLBACK');
    await expect(lost).rejects.toThrow(/rolled back/);
    // The rollouts go on: r1's next call continues from its committed call, r2 starts afresh.
    record(store, 'r1', 1);
    record(store, 'r2', 0);
    await store.committed();
    expect(committedCalls(store.path)).toBe(3);
    // Another process reads the journal whole.
    const other = new SqliteRunStore(store.path, { mode: 'read' });
    stores.push(other);
    expect(other.calls({ rolloutId: 'r1' }).map((c) => c.step)).toEqual([0, 1]);
    expect(other.calls({ rolloutId: 'r2' }).map((c) => c.step)).toEqual([0]);
    expect(other.getCached('hash-r1-1')).toBeUndefined();
  });

  it('commits what is open when it closes', () => {
    const store = open();
    start(store);
    record(store, 'r1', 0);
    store.close();
    stores.splice(stores.indexOf(store), 1);
    expect(committedCalls(store.path)).toBe(1);
  });
});

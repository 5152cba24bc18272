import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApptown } from '../src/bench/apptown/index.js';
import { InterruptedError } from '../src/errors.js';
import { runConditions, type RunParams } from '../src/experiment/run-conditions.js';
import {
  FakeOpenAiServer,
  reply,
  type FakeHandler,
  type FakeReply,
  type FakeRequest,
} from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { hashUnit, INSTANT_CLOCK, makeEnv, shortestTaskIds, taskResolver } from './helpers/env.js';
import { expiringFetch, REQUEST_ID_HEADER } from './helpers/expiring-fetch.js';

/**
 * Issue 17's fault campaign, kept: ≥100 rollouts through the fake model server while it answers
 * 30% of requests with a fault. Transient faults (429, 500, 503, connection resets, timeouts,
 * malformed bodies) hit a request at most twice, so the client's retries always get through
 * and the results must equal a fault-free run's; context-length errors are not transient and
 * must end up as per-rollout records, never as a crash or a lost rollout.
 */

const TRANSIENT = ['429', '500', '503', 'reset', 'timeout', 'malformed'] as const;
type Fault = (typeof TRANSIENT)[number] | 'context';
const RATE = 0.3;

/**
 * The requests of a run go through a fetch whose timer the test controls: a request the server
 * answers "late" is timed out at once, as the client's timer would after `timeout_ms`.
 */
const timeouts = expiringFetch();

function faultReply(fault: Fault, req: FakeRequest): FakeReply {
  switch (fault) {
    case '429':
      return reply.rateLimit({ retryAfterMs: 1 });
    case '500':
      return reply.serverError();
    case '503':
      return reply.serverError({ status: 503, message: 'overloaded' });
    case 'reset':
      return reply.reset();
    case 'timeout':
      // Later than the endpoint's timeout_ms below: the request's timer expires now (not after
      // timeout_ms of real time); the server's timers end with close().
      if (!timeouts.expire(req.headers[REQUEST_ID_HEADER])) throw new Error('no request to expire');
      return reply.text('late', { latencyMs: 600_000 });
    case 'malformed':
      return reply.malformedJson();
    case 'context':
      return reply.contextLength();
  }
}

/** A fault kind for u in [0, 1). Timeouts are rarer than the others (as on a real endpoint). */
function pick(kinds: readonly Fault[], u: number): Fault {
  const weight = (k: Fault) => (k === 'timeout' ? 1 : 4);
  const total = kinds.reduce((sum, k) => sum + weight(k), 0);
  let at = u * total;
  for (const k of kinds) {
    at -= weight(k);
    if (at < 0) return k;
  }
  return kinds[kinds.length - 1]!;
}

/** Wraps a handler: 30% of requests get a fault; one request is faulted at most twice. */
function faulty(inner: FakeHandler, kinds: readonly Fault[]) {
  const attempts = new Map<string, number>();
  const injected = new Map<Fault, number>();
  const handler: FakeHandler = (req) => {
    const n = attempts.get(req.raw) ?? 0;
    attempts.set(req.raw, n + 1);
    const roll = hashUnit(`${req.raw}#${n}`);
    if (n < 2 && roll < RATE) {
      const fault = pick(kinds, roll / RATE);
      injected.set(fault, (injected.get(fault) ?? 0) + 1);
      return faultReply(fault, req);
    }
    return inner(req);
  };
  return { handler, injected };
}

/** Backoff without waiting: the retries happen at once (issue 17: no sleeps in tests). */

const CONFIG = {
  endpoints: {
    default: {
      base_url: 'http://127.0.0.1:9/v1',
      api_key_env: 'ACON_TEST_KEY',
      max_retries: 4,
      concurrency: 8,
      // Only the faults time out (see expiringFetch); an answer on a loaded machine never does.
      timeout_ms: 120_000,
    },
  },
  run: { concurrency: 8 },
};

type Outcome = {
  success: boolean;
  score: number;
  steps: number;
  peak: number;
  error: string | null;
};

let sim: FakeHandler;
let params: RunParams;
const servers: FakeOpenAiServer[] = [];

async function runThrough(handler: FakeHandler, opts: { stopAfter?: number; dir?: string } = {}) {
  const server = await FakeOpenAiServer.start({ handler });
  servers.push(server);
  const env = makeEnv({
    provider: 'openai',
    baseUrl: server.url,
    config: {
      ...CONFIG,
      endpoints: { default: { ...CONFIG.endpoints.default, base_url: server.url } },
    },
    clock: INSTANT_CLOCK,
    fetch: timeouts.fetch,
    ...(opts.dir && { dir: opts.dir }),
  });
  return { env, server };
}

function outcomes(env: ReturnType<typeof makeEnv>, runId: string): Map<string, Outcome> {
  return new Map(
    env.store.rollouts(runId).map((r) => [
      `${r.condition}|${r.task_id}`,
      {
        success: r.success,
        score: r.score,
        steps: r.steps,
        peak: r.peak_input_tokens,
        error: r.error,
      },
    ]),
  );
}

beforeAll(async () => {
  const bench = createApptown();
  sim = simBackedHandler({
    taskOf: await taskResolver(bench),
    planFor: (id) => bench.referencePlan(id),
  });
  // The 50 shortest tasks of all splits, under raw and naive (compressor calls too): 100 rollouts.
  const tasks = await shortestTaskIds(bench, 50);
  params = {
    bench: 'apptown',
    split: 'all',
    strategies: ['raw', 'naive'],
    tasks,
    guidelines: null,
  };
});

afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// The first test runs 200 rollouts through the sim and the fake server (about 55 s of CPU on a
// quiet core): the limits below only guard against a hang, they time nothing.
describe('fault injection through the fake model server (30% of requests)', () => {
  it('gives results identical to a fault-free run when every fault is transient', async () => {
    const clean = await runThrough(sim);
    const base = await runConditions({
      session: clean.env,
      kind: 'compare',
      params,
      command: 'test',
    });
    const faults = faulty(sim, TRANSIENT);
    const noisy = await runThrough(faults.handler);
    const result = await runConditions({
      session: noisy.env,
      kind: 'compare',
      params,
      command: 'test',
    });

    const expected = outcomes(clean.env, base.provenance.runId);
    const got = outcomes(noisy.env, result.provenance.runId);
    expect(expected.size).toBe(100);
    expect(got).toEqual(expected);
    expect(result.conditions.map((c) => [c.condition, c.accuracy, c.meanPeakTokens])).toEqual(
      base.conditions.map((c) => [c.condition, c.accuracy, c.meanPeakTokens]),
    );
    // Every kind of fault was injected, and the server saw the retries.
    for (const kind of TRANSIENT) expect(faults.injected.get(kind) ?? 0).toBeGreaterThan(0);
    expect(noisy.server.chatRequests.length).toBeGreaterThan(clean.server.chatRequests.length);
    expect(noisy.env.store.getRun(result.provenance.runId).status).toBe('finished');
  }, 300_000);

  it('records context-length failures per rollout and loses no rollout across a kill and resume', async () => {
    const faults = faulty(sim, [...TRANSIENT, 'context']);
    const first = await runThrough(faults.handler);
    // Half the tasks: the first test already ran 100 rollouts through faults.
    const half = { ...params, tasks: params.tasks!.slice(0, 25) };
    let stopped = false;
    const run = runConditions({
      session: first.env,
      kind: 'compare',
      params: half,
      command: 'test',
      onProgress: (done) => {
        if (!stopped && done >= 20) {
          stopped = true;
          first.env.abort.abort();
        }
      },
    });
    await expect(run).rejects.toBeInstanceOf(InterruptedError);
    const runId = first.env.store.listRuns()[0]!.id;
    const kept = new Map(first.env.store.rollouts(runId).map((r) => [r.id, r.finished_at]));
    expect(kept.size).toBeGreaterThanOrEqual(20);
    expect(kept.size).toBeLessThan(50);
    first.env.store.close();

    const again = await runThrough(faults.handler, { dir: first.env.dir });
    const result = await runConditions({
      session: again.env,
      kind: 'compare',
      params: half,
      resume: runId,
      command: 'test',
    });
    const rows = again.env.store.rollouts(runId);
    expect(rows).toHaveLength(50);
    expect(new Set(rows.map((r) => `${r.condition}|${r.task_id}`)).size).toBe(50);
    for (const [id, finished] of kept) {
      expect(rows.find((r) => r.id === id)?.finished_at).toBe(finished);
    }
    expect(faults.injected.get('context') ?? 0).toBeGreaterThan(0);
    // A context-length error the agent could not cure is the rollout's recorded error; each
    // one is also in the call log of its rollout.
    const errored = rows.filter((r) => r.error !== null);
    for (const r of errored) {
      expect(r.status).toBe('error');
      const failed = again.env.store.calls({ rolloutId: r.id }).filter((c) => c.error !== null);
      expect(failed.length).toBeGreaterThan(0);
    }
    const contextCalls = again.env.store
      .calls({ runId })
      .filter((c) => c.error !== null && /context/i.test(c.error));
    expect(contextCalls.length).toBeGreaterThan(0);
    expect(result.conditions.map((c) => c.tasks)).toEqual([25, 25]);
    expect(again.env.store.getRun(runId).status).toBe('finished');
  }, 300_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApptown } from '../src/bench/apptown/index.js';
import { ProviderError } from '../src/errors.js';
import { infraFailures } from '../src/store/index.js';
import { runConditions, type RunParams } from '../src/experiment/run-conditions.js';
import { runShow, runShowTable } from '../src/report/run-show.js';
import { RunsListSchema } from '../src/report/runs-list.js';
import { FakeOpenAiServer, reply, type FakeHandler } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { runAcon } from './helpers/cli.js';
import { hashUnit, INSTANT_CLOCK, makeEnv, shortestTaskIds, taskResolver } from './helpers/env.js';

/**
 * Issue #31, item 10: at 60% injected faults some calls fail every attempt. Such a call ends
 * only its rollout, as a failure of the infrastructure: the run finishes in one invocation,
 * lists those rollouts, keeps them out of accuracy, and `--resume` runs them again.
 */

const RATE = 0.6;

/** Every attempt of every request fails with probability RATE (transient kinds only). */
function faulty(inner: FakeHandler): FakeHandler {
  const attempts = new Map<string, number>();
  return (req) => {
    const n = attempts.get(req.raw) ?? 0;
    attempts.set(req.raw, n + 1);
    const roll = hashUnit(`${req.raw}#${n}`);
    if (roll >= RATE) return inner(req);
    const kinds = [
      reply.serverError(),
      reply.serverError({ status: 503, message: 'overloaded' }),
      reply.reset(),
      reply.malformedJson(),
      reply.rateLimit({ retryAfterMs: 1 }),
    ];
    return kinds[Math.floor((roll / RATE) * kinds.length)]!;
  };
}

let sim: FakeHandler;
let params: RunParams;
const servers: FakeOpenAiServer[] = [];

async function envThrough(handler: FakeHandler, dir?: string) {
  const server = await FakeOpenAiServer.start({ handler });
  servers.push(server);
  const endpoint = {
    base_url: server.url,
    api_key_env: 'ACON_TEST_KEY',
    max_retries: 5,
    concurrency: 6,
  };
  return makeEnv({
    provider: 'openai',
    baseUrl: server.url,
    config: { endpoints: { default: endpoint }, run: { concurrency: 6 } },
    clock: INSTANT_CLOCK,
    ...(dir && { dir }),
  });
}

beforeAll(async () => {
  const bench = createApptown();
  sim = simBackedHandler({
    taskOf: await taskResolver(bench),
    planFor: (id) => bench.referencePlan(id),
  });
  const tasks = await shortestTaskIds(bench, 12);
  params = { bench: 'apptown', split: 'all', strategies: ['raw'], tasks, guidelines: null };
});

afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('infrastructure failures (60% of attempts faulted)', () => {
  it('finishes the run in one invocation, lists the failed rollouts apart, and --resume reruns them', async () => {
    const noisy = await envThrough(faulty(sim));
    const result = await runConditions({
      session: noisy,
      kind: 'compare',
      params,
      command: 'test',
    });
    const runId = result.provenance.runId;
    const stored = noisy.store.rollouts(runId);
    const failed = result.infraFailures;
    // Some rollouts lost a call to the faults, some got through; together they are every task.
    expect(failed.length).toBeGreaterThan(0);
    expect(stored.length).toBeGreaterThan(0);
    expect(new Set([...stored.map((r) => r.task_id), ...failed.map((f) => f.taskId)])).toEqual(
      new Set(params.tasks),
    );
    expect(stored.length + failed.length).toBe(12);
    for (const f of failed) expect(f.error).toMatch(/gave up after 6 attempts/);
    expect(noisy.store.getRun(runId).status).toBe('finished');
    // Accuracy counts the rollouts that ran, not the ones the infrastructure lost.
    const raw = result.conditions.find((c) => c.condition === 'raw')!;
    expect(raw.tasks).toBe(stored.length);
    expect(raw.accuracy).toBeCloseTo(stored.filter((r) => r.success).length / stored.length);
    // `acon runs show` lists them, with the command that runs them again.
    const show = runShow(
      noisy.store.getRun(runId),
      stored,
      { failed: false, condition: null, task: null },
      infraFailures(noisy.store, runId),
    );
    expect(show.infraFailures).toHaveLength(failed.length);
    const text = runShowTable(show, { width: 200 });
    expect(text).toContain(`${failed.length} rollout(s) failed by the infrastructure`);
    expect(text).toContain(`acon compare --resume ${runId}`);
    for (const f of failed) expect(text).toContain(f.taskId);
    noisy.store.close();
    // `acon runs` counts them, in the table and in --json.
    const list = await runAcon(['runs', '--db', noisy.dbPath, '--wide'], { cwd: noisy.dir });
    expect(list.stderr).toBe('');
    expect(list.stdout).toContain(`finished +${failed.length} lost`);
    const json = await runAcon(['runs', '--db', noisy.dbPath, '--json'], { cwd: noisy.dir });
    expect(json.stderr).toBe('');
    expect(RunsListSchema.parse(JSON.parse(json.stdout))[0]!.infraFailures).toBe(failed.length);

    // --resume through a healthy server runs exactly the failed ones again.
    const healthy = await envThrough(sim, noisy.dir);
    const before = new Map(healthy.store.rollouts(runId).map((r) => [r.id, r.finished_at]));
    const again = await runConditions({
      session: healthy,
      kind: 'compare',
      params: { ...params, taskIds: params.tasks! },
      resume: runId,
      command: 'test',
    });
    expect(again.infraFailures).toEqual([]);
    const after = await runAcon(['runs', '--db', noisy.dbPath, '--json'], { cwd: noisy.dir });
    expect(RunsListSchema.parse(JSON.parse(after.stdout))[0]!.infraFailures).toBe(0);
    expect(infraFailures(healthy.store, runId)).toEqual([]);
    const rows = healthy.store.rollouts(runId);
    expect(rows).toHaveLength(12);
    for (const [id, at] of before) expect(rows.find((r) => r.id === id)?.finished_at).toBe(at);
    expect(new Set(rows.filter((r) => !before.has(r.id)).map((r) => r.task_id))).toEqual(
      new Set(failed.map((f) => f.taskId)),
    );
  }, 120_000);

  it('still stops the run on an error every call would hit (401)', async () => {
    const env = await envThrough(() => reply.error(401, 'bad key'));
    const run = runConditions({ session: env, kind: 'compare', params, command: 'test' });
    await expect(run).rejects.toBeInstanceOf(ProviderError);
    const runId = env.store.listRuns()[0]!.id;
    expect(env.store.getRun(runId).status).toBe('failed');
    expect(infraFailures(env.store, runId)).toEqual([]);
  }, 60_000);

  it('still stops the run when no server answers at the endpoint (connection refused)', async () => {
    const server = await FakeOpenAiServer.start({ handler: sim });
    const url = server.url;
    await server.close();
    const env = makeEnv({
      provider: 'openai',
      baseUrl: url,
      config: {
        endpoints: { default: { base_url: url, api_key_env: 'ACON_TEST_KEY', max_retries: 1 } },
      },
      clock: INSTANT_CLOCK,
    });
    const run = runConditions({ session: env, kind: 'compare', params, command: 'test' });
    await expect(run).rejects.toThrow(/ECONNREFUSED|cannot connect/);
    const runId = env.store.listRuns()[0]!.id;
    expect(env.store.getRun(runId).status).toBe('failed');
    expect(infraFailures(env.store, runId)).toEqual([]);
  }, 60_000);
});

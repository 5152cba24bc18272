import { afterEach, describe, expect, it } from 'vitest';
import { infraFailures } from '../src/store/index.js';
import { optimize } from '../src/optimize/optimize.js';
import { optimizeReport } from '../src/report/optimize-report.js';
import { rolloutKey } from '../src/store/index.js';
import { FakeOpenAiServer, reply, type FakeHandler } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { INSTANT_CLOCK, lossyEnv, makeEnv, optimizeParams, taskResolver } from './helpers/env.js';

/**
 * Issue #31, item 10, in `acon optimize`: a rollout lost to the infrastructure inside a stage
 * that is then decided and checkpointed is run again by `--resume`, and the stage records what
 * its decision lacked and what the selection rule picks on the completed rollouts.
 */

const PARAMS = optimizeParams({ maxTasks: 6 });

const servers: FakeOpenAiServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: FakeHandler): Promise<string> {
  const server = await FakeOpenAiServer.start({ handler });
  servers.push(server);
  return server.url;
}

/** The first run writes the lossy v0 (lossyEnv); the resumed one opens the same folder. */
function env(url: string, dir?: string) {
  const opts = {
    shortTasks: true,
    provider: 'openai' as const,
    baseUrl: url,
    clock: INSTANT_CLOCK,
  };
  return dir ? makeEnv({ ...opts, dir }) : lossyEnv(opts);
}

describe('acon optimize --resume after infrastructure failures', () => {
  it('reruns the failed rollouts of stages already decided and records what their decision lacked', async () => {
    const probe = lossyEnv({ shortTasks: true, provider: 'sim' });
    const tasks = await probe.bench.listTasks();
    // A task whose instruction no other task's contains, so matching it in a request is exact.
    const first = (split: string) =>
      tasks.find(
        (t) =>
          t.split === split &&
          tasks.every((o) => o === t || !o.instruction.includes(t.instruction)),
      )!;
    // Every request about one train task and one selection task fails every attempt (503).
    const lost = [first('train'), first('dev')];
    const sim = simBackedHandler({
      taskOf: await taskResolver(probe.bench),
      planFor: (id) => probe.bench.referencePlan!(id),
    });
    const faulty: FakeHandler = (req) =>
      lost.some((t) => req.raw.includes(JSON.stringify(t.instruction).slice(1, -1)))
        ? reply.serverError({ status: 503, message: 'overloaded' })
        : sim(req);

    const noisy = env(await serve(faulty));
    const r1 = await optimize(noisy, PARAMS, { command: 'test' });
    if ('dryRun' in r1) throw new Error('unexpected dry run');
    const listed = infraFailures(noisy.store, r1.runId);
    expect(new Set(listed.map((f) => f.taskId))).toEqual(new Set(lost.map((t) => t.id)));
    // Both stages were decided with rollouts missing, and say which.
    const ut1 = r1.stages.find((s) => s.stage === 'ut:obs:r1')!;
    expect(ut1.incomplete.map((k) => rolloutKey(k.condition, k.taskId))).toEqual(
      expect.arrayContaining([rolloutKey('raw', lost[0]!.id)]),
    );
    expect(ut1.incomplete.some((k) => k.taskId === lost[1]!.id)).toBe(true);
    // The parent and the candidates are compared on the selection tasks none of them lost,
    // not rejected for a rollout the infrastructure lost.
    expect(ut1.selectionTasks).toBe(PARAMS.maxTasks! - 1);
    // Each candidate is scored on them or dropped by racing's rule (judged on them too), never
    // left unscored for the lost rollout.
    expect(ut1.candidates.length).toBeGreaterThan(0);
    for (const c of ut1.candidates) {
      if (c.accuracy === null) expect(c.reason).toMatch(/^dropped by racing after [1-5]\/6 tasks/);
    }
    const before = new Map(noisy.store.rollouts(r1.runId).map((r) => [r.id, r.finished_at]));
    noisy.store.close();

    // --resume through a healthy server reruns every listed rollout, in whatever stage.
    const healthy = env(await serve(sim), noisy.dir);
    const r2 = await optimize(healthy, PARAMS, { command: 'test', resume: r1.runId });
    if ('dryRun' in r2) throw new Error('unexpected dry run');
    expect(infraFailures(healthy.store, r1.runId)).toEqual([]);
    const rows = healthy.store.rollouts(r1.runId);
    const stored = new Set(rows.map((r) => rolloutKey(r.condition, r.task_id)));
    for (const f of listed) expect(stored.has(rolloutKey(f.condition, f.taskId))).toBe(true);
    // Nothing finished was redone.
    for (const [id, at] of before) expect(rows.find((r) => r.id === id)?.finished_at).toBe(at);
    // Decisions stand (a resume continues what was recorded); each stage that lacked rollouts
    // says what it lacked and what the rule picks now that they are stored.
    for (const s of r2.stages) {
      const old = r1.stages.find((x) => x.stage === s.stage)!;
      expect(s.accepted).toBe(old.accepted);
      expect(s.incomplete).toEqual(old.incomplete);
      if (old.incomplete.length === 0) continue;
      expect(s.recheck).toMatchObject({ missing: 0 });
      expect(s.recheck!.agrees).toBe(s.recheck!.accepted === s.accepted);
    }
    expect(r2.stages.some((s) => s.recheck !== undefined)).toBe(true);
    // The report says it under each such stage.
    const text = optimizeReport(r2, 'acon.db', { wide: true });
    expect(text).toMatch(
      /decided without \d+ rollout\(s\) the infrastructure lost; rerun by --resume/,
    );
  }, 300_000);
});

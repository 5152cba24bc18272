import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { conditionMetrics, rolloutMetrics } from '../src/metrics/metrics.js';
import { runConditions } from '../src/experiment/run-conditions.js';
import { systemTokens } from '../src/experiment/rollouts.js';
import type { ToolDef } from '../src/llm/types.js';
import { FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { TEST_KEY, makeEnv, taskResolver } from './helpers/env.js';

describe('acon run through an OpenAI-compatible server', () => {
  let server: FakeOpenAiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('stores the run completely and its table is recomputed from the stored rows', async () => {
    const probe = makeEnv({ shortTasks: true, provider: 'sim' });
    const taskOf = await taskResolver(probe.bench);
    server = await FakeOpenAiServer.start({
      handler: simBackedHandler({ taskOf, planFor: (id) => probe.bench.referencePlan!(id) }),
    });
    const env = makeEnv({ shortTasks: true, provider: 'openai', baseUrl: server.url });
    // The longest tasks read big listings, so the naive compressor has work to do.
    const tasks = (await env.bench.listTasks('dev'))
      .sort((a, b) => b.referenceLength - a.referenceLength || a.id.localeCompare(b.id))
      .slice(0, 3)
      .map((t) => t.id);
    const result = await runConditions({
      session: env,
      kind: 'compare',
      params: {
        bench: 'apptown',
        split: 'dev',
        strategies: ['raw', 'naive'],
        tasks,
        guidelines: null,
      },
      command: 'test',
    });
    const { store } = env;
    const runId = result.provenance.runId;
    expect(result.provenance.simulated).toBe(false);
    expect(store.getRun(runId).status).toBe('finished');

    const rows = store.rollouts(runId);
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      const steps = store.stepRecords(row.id);
      const prompts = store.prompts(row.id);
      expect(steps.length).toBe(row.steps);
      expect(steps.length).toBeGreaterThan(0);
      // Every agent step made exactly one recorded agent call through HTTP.
      const calls = store.calls({ rolloutId: row.id, role: 'agent' });
      expect(calls.length).toBe(steps.length);
      // The step's prompt is the recorded request's messages, read from the same blobs.
      expect(calls.map((c) => (JSON.parse(c.request) as { messages: unknown }).messages)).toEqual(
        prompts,
      );
      // Metrics recomputed from stored steps, events and calls equal the stored metrics.
      const again = rolloutMetrics({
        success: row.success,
        score: row.score,
        stepPromptTokens: steps.map((s) => s.promptTokens),
        // Peak and dependency leave out the system prompt and the tools (the paper's, #23).
        systemTokens: systemTokens(
          store.trajectory(row.id).system,
          (JSON.parse(calls[0]!.request) as { tools?: ToolDef[] }).tools ?? [],
        ),
        events: store.events(row.id),
        calls: store.callsOfRollout(row.id),
        wallMs: row.metrics.wallMs,
      });
      // The full cost (the rollout's and each role's) needs the prompts' shared prefixes,
      // which the rollout computed.
      const byRole = Object.fromEntries(
        Object.entries(again.byRole).map(([role, u]) => [
          role,
          { ...u, fullCostUsd: row.metrics.byRole[role]?.fullCostUsd ?? null },
        ]),
      );
      expect({ ...again, byRole, fullCostUsd: row.metrics.fullCostUsd }).toEqual(row.metrics);
      expect(row.metrics.fullCostUsd).toBeGreaterThan(0);
      for (const u of Object.values(row.metrics.byRole)) expect(u.fullCostUsd).toBeGreaterThan(0);
    }
    const naiveEvents = rows
      .filter((r) => r.condition === 'naive')
      .flatMap((r) => store.events(r.id));
    expect(naiveEvents.length).toBeGreaterThan(0);
    expect(naiveEvents.every((e) => e.callId !== null || e.failed)).toBe(true);

    // The printed numbers are exactly those computed from stored rows.
    const raw = rows.filter((r) => r.condition === 'raw').map((r) => r.metrics);
    for (const label of ['raw', 'naive']) {
      const expected = conditionMetrics(
        label,
        rows.filter((r) => r.condition === label).map((r) => r.metrics),
        { seed: env.config.seed, raw },
      );
      // The table adds the Pareto marker (issue #24), computed across the conditions.
      const { pareto, atStepCap, ...printed } = result.conditions.find(
        (c) => c.condition === label,
      )!;
      expect(typeof pareto).toBe('boolean');
      expect(printed).toEqual(expected);
      // Rollouts stopped by max_steps, counted from the stored status (issue #61).
      expect(atStepCap).toBe(
        rows.filter((r) => r.condition === label && r.status === 'max_steps').length,
      );
    }
    expect(result.conditions[0]!.costPerTask).toBeGreaterThan(0);

    // The API key went over HTTP but never into the database.
    expect(server.requests.some((r) => String(r.headers.authorization).includes(TEST_KEY))).toBe(
      true,
    );
    store.close();
    for (const file of [env.dbPath, `${env.dbPath}-wal`]) {
      let bytes = '';
      try {
        bytes = readFileSync(file).toString('latin1');
      } catch {
        continue;
      }
      expect(bytes).not.toContain(TEST_KEY);
    }
  });
});

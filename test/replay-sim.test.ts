import { describe, expect, it } from 'vitest';
import { replayMetrics, replayTraces, runConditions, runTraces } from '../src/experiment/index.js';
import { defaultTokenCounter } from '../src/agent/index.js';
import { makeEnv } from './helpers/env.js';

/**
 * Issue #57: raw rollouts recorded as traces, replayed offline with the sim agent acting on the
 * compressed context it is shown. A guideline that keeps identifiers must gain agreement and
 * probe recall over the shipped v0 (which drops fields by chance); the recorded steps before any compression cost no call.
 */
describe('replay of recorded raw rollouts with the sim provider', () => {
  it('scores an id-keeping guideline above v0 on agreement and probe recall', async () => {
    const env = makeEnv({ shortTasks: true, provider: 'sim', config: { context: { t_obs: 256 } } });
    const tasks = (await env.bench.listTasks('train')).slice(0, 6).map((t) => t.id);
    const recorded = await runConditions({
      session: env,
      kind: 'compare',
      params: { bench: 'apptown', split: 'train', strategies: ['raw'], tasks, guidelines: null },
      command: 'test',
    });
    const traces = runTraces(env.store, recorded.provenance.runId);
    expect(traces.map((t) => t.taskId).sort()).toEqual([...tasks].sort());
    expect(traces.every((t) => t.messages.some((m) => m.role === 'tool'))).toBe(true);

    const v0 = { obs: env.guidelines.active('obs'), hist: env.guidelines.active('hist') };
    const keep = env.guidelines.write({
      kind: 'obs',
      parent: v0.obs.id,
      phase: 'manual',
      run: null,
      text: 'Rewrite the tool output so that it keeps what matters for the task and leaves out what does not.\n\nKEEP: id, name, access_token',
      slug: 'keep-ids',
    });
    const replay = async (label: string, obs: { id: string; text: string }) =>
      replayMetrics(
        await replayTraces({
          traces,
          condition: { label, pair: { obs, hist: v0.hist }, only: 'obs' },
          config: env.config,
          llm: env.llm,
          tokens: defaultTokenCounter,
          runId: recorded.provenance.runId,
        }),
      );
    const base = await replay('v0', { id: v0.obs.id, text: v0.obs.text });
    const kept = await replay('keep-ids', { id: keep.id, text: keep.text });
    expect(base.compressedSteps).toBeGreaterThan(0);
    expect(base.compressedSteps).toBeLessThan(base.steps);
    expect(kept.probes).toBe(base.probes);
    expect(kept.probeRecall!).toBeGreaterThan(base.probeRecall!);
    expect(kept.agreement!).toBeGreaterThan(base.agreement!);
    expect(base.peakTokens).toBeLessThan(base.fullPeakTokens);
    env.store.close();
  }, 120_000);
});

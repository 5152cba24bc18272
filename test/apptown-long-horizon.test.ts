import { describe, expect, it } from 'vitest';
import { runConditions } from '../src/experiment/run-conditions.js';
import { makeEnv } from './helpers/env.js';

/**
 * Issue 13: apptown's test split is long enough for ACON's history compressor (T_hist = 4096
 * tokens) to matter. Measured with the default settings and the shipped v0 guidelines on every
 * fifth test task (a fixed sample that keeps the suite fast; `acon compare --split test` shows
 * the whole split).
 */
describe('apptown long-horizon regime', () => {
  it('history compression triggers in at least half of the acon rollouts on test', async () => {
    const env = makeEnv({ provider: 'sim' });
    const sample = (await env.bench.listTasks('test')).filter((_, i) => i % 5 === 0);
    expect(sample.length).toBeGreaterThanOrEqual(8);
    const result = await runConditions({
      session: env,
      kind: 'compare',
      params: {
        bench: 'apptown',
        split: 'test',
        strategies: ['acon'],
        tasks: sample.map((t) => t.id),
        guidelines: null,
      },
      command: 'test',
    });
    const rollouts = env.store.rollouts(result.provenance.runId);
    expect(rollouts).toHaveLength(sample.length);
    const folded = rollouts.filter((r) => env.store.events(r.id).some((e) => e.kind === 'hist'));
    expect(folded.length).toBeGreaterThanOrEqual(rollouts.length / 2);
    env.store.close();
  }, 180_000);
});

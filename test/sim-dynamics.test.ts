import { describe, expect, it } from 'vitest';
import { runConditions } from '../src/experiment/run-conditions.js';
import type { ConditionMetrics } from '../src/domain/condition-metrics.js';
import { conditionTable } from '../src/report/table.js';
import { makeEnv } from './helpers/env.js';

/**
 * Issue 5: the sim provider reproduces the method's dynamics on apptown dev (the short first
 * task set, test/helpers/env.ts; the long tasks of issue 13 are tested in apptown-long-horizon). These are
 * measured here, not asserted from constants: if the world, the sim or a strategy changes so
 * that compression no longer matters, these tests fail.
 */
const GENERIC =
  'Rewrite the tool output so that it keeps what matters for the task and leaves out what does not.';

describe('sim dynamics on apptown dev', () => {
  it('raw succeeds, dropping ids loses tasks, KEEP lines restore accuracy, DROP lines and masking cut tokens', async () => {
    const env = makeEnv({ shortTasks: true, provider: 'sim' });
    const keep = env.guidelines.write({
      kind: 'obs',
      parent: 'obs-0000',
      phase: 'manual',
      run: null,
      text: `${GENERIC}\n\nKEEP: id, name, access_token`,
      slug: 'keep-ids',
    });
    const keepDrop = env.guidelines.write({
      kind: 'obs',
      parent: keep.id,
      phase: 'manual',
      run: null,
      text: `${GENERIC}\n\nKEEP: id, name, access_token\nDROP: description, created_at, updated_at, tags, labels, address`,
      slug: 'keep-drop',
    });
    const run = (strategies: ('raw' | 'masking' | 'naive' | 'acon')[], guidelines: string | null) =>
      runConditions({
        session: env,
        kind: 'compare',
        params: { bench: 'apptown', split: 'dev', strategies, tasks: null, guidelines },
        command: 'test',
      });
    const base = await run(['raw', 'masking', 'naive'], null);
    const by = (r: { conditions: ConditionMetrics[] }, label: string) =>
      r.conditions.find((c) => c.condition === label)!;
    const raw = by(base, 'raw');
    const naive = by(base, 'naive');
    const masking = by(base, 'masking');
    expect(raw.tasks).toBeGreaterThanOrEqual(15);
    expect(raw.accuracy).toBeGreaterThanOrEqual(0.95);
    // The generic guideline keeps each field with a seeded, evidence-weighted draw (issue 22): on
    // these short tasks it loses little, so the loss is shown with a guideline that drops ids.
    expect(naive.accuracy).toBeLessThanOrEqual(raw.accuracy);
    const noIds = env.guidelines.write({
      kind: 'obs',
      parent: 'obs-0000',
      phase: 'manual',
      run: null,
      text: `${GENERIC} Leave out identifiers.`,
      slug: 'no-ids',
    });
    const lossy = (await run(['acon'], `${noIds.id},hist@0`)).conditions[0]!;
    expect(lossy.accuracy).toBeLessThanOrEqual(raw.accuracy - 0.15);
    expect(masking.meanPeakTokens).toBeLessThan(raw.meanPeakTokens);

    const withKeep = (await run(['acon'], `${keep.id},hist@0`)).conditions[0]!;
    expect(withKeep.accuracy).toBeGreaterThanOrEqual(raw.accuracy - 0.05);
    expect(withKeep.accuracy).toBeGreaterThan(lossy.accuracy);

    const withDrop = (await run(['acon'], `${keepDrop.id},hist@0`)).conditions[0]!;
    expect(withDrop.meanPeakTokens).toBeLessThan(withKeep.meanPeakTokens);
    expect(withDrop.accuracy).toBeGreaterThanOrEqual(withKeep.accuracy - 0.05);
    env.store.close();
  });

  it('prints byte-identical result tables for the same command twice', async () => {
    const tables: string[] = [];
    for (let i = 0; i < 2; i++) {
      const env = makeEnv({ shortTasks: true, provider: 'sim' });
      const r = await runConditions({
        session: env,
        kind: 'compare',
        params: {
          bench: 'apptown',
          split: 'dev',
          strategies: ['raw', 'naive'],
          tasks: null,
          guidelines: null,
        },
        command: 'test',
      });
      tables.push(conditionTable(r.conditions, r.provenance));
      env.store.close();
    }
    expect(tables[0]).toContain('SIMULATED');
    expect(tables[1]).toBe(tables[0]);
  });
});

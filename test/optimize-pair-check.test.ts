import { describe, expect, it } from 'vitest';
import { optimize } from '../src/optimize/optimize.js';
import { lossyEnv, optimizeParams } from './helpers/env.js';

/**
 * Issue 56: the obs and hist guidelines are tuned alone but deployed together, so after the
 * phases the pair runs together on the selection split; what becomes active is never below the
 * v0 pair there.
 */
describe('optimize checks the pair together', () => {
  it('makes active only a pair whose selection accuracy is not below the v0 pair, and says why', async () => {
    const env = lossyEnv({ shortTasks: true, provider: 'sim' });
    const before = { obs: env.guidelines.activeId('obs'), hist: env.guidelines.activeId('hist') };
    const r = await optimize(
      env,
      optimizeParams({ target: 'both', candidates: 2, maxTasks: 8, promote: true }),
      { command: 'test' },
    );
    if ('dryRun' in r) throw new Error('unexpected dry run');
    const check = r.pairCheck!;
    expect(check.split).toBe('dev');
    expect(check.options.at(-1)!.name).toBe('v0');
    expect(check.options.at(-1)!.label).toBe(`acon[${r.start.obs.id},${r.start.hist.id}]`);
    const v0 = check.options.at(-1)!;
    const chosen = check.options.find((o) => o.name === check.chosen)!;
    expect(chosen.accuracy).toBeGreaterThanOrEqual(v0.accuracy);
    // The rows the check compared are the final table's selection rows (same conditions).
    const dev = r.tables.find((t) => t.split === 'dev')!;
    const v0Row = dev.rows.find((row) => row.condition === v0.label)!;
    expect(v0Row.accuracy).toBe(v0.accuracy);
    if (check.chosen === 'v0') {
      expect(check.verdict).toBe('no guideline beat v0 on selection; v0 stays active');
      expect(r.promoted).toEqual([]);
      expect(env.guidelines.activeId('obs')).toBe(before.obs);
      expect(env.guidelines.activeId('hist')).toBe(before.hist);
    } else {
      expect(chosen.eligible).toBe(true);
      expect(env.guidelines.activeId('obs')).toBe(r.chosen!.obs.id);
      expect(env.guidelines.activeId('hist')).toBe(r.chosen!.hist.id);
    }
    // Every option the rule passed over says why, in the rule's words.
    for (const o of check.options.slice(0, -1))
      expect(o.reason).toMatch(
        /^(below the v0 pair|better than|as good as|as many solved|not shown better)/,
      );
  }, 300_000);
});

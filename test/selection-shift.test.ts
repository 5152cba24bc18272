import { describe, expect, it } from 'vitest';
import type { TaskInfo } from '../src/bench/types.js';
import { makeCondition, runRollouts } from '../src/experiment/index.js';
import { DEFAULT_DECISION } from '../src/optimize/decision-rule.js';
import { groupedSelection, taskPatterns } from '../src/optimize/grouped-split.js';
import { choosePaired, pairOutcomes } from '../src/optimize/paired-selection.js';
import { makeEnv } from './helpers/env.js';
import { simRun } from './helpers/store.js';

/**
 * Issue 56, must show: a hand-made observation guideline that drops a field only the held-out
 * task patterns need. Selected the old way (the first 16 dev tasks, which share every pattern
 * with train) it is accepted; selected on whole patterns held out of train+dev (`grouped`, the
 * apptown default now) it is rejected, by the same compression-phase rule.
 *
 * The guideline drops `created_at`, which no task here needs and which every listing carries (so
 * tokens fall), and `address`, which only tasks of app mixes dev's first 16 tasks lack read (a contact's or an
 * order's address). On the short tasks grouped by app mix, dev's first 16 tasks have no phone or
 * shop task; the grouped draw holds `phone` and `shop` out. Both premises are asserted first, so a change of task set or draw fails here
 * and says which, instead of passing for another reason.
 */
describe('selection that faces the shift rejects what the old selection accepted', () => {
  it('accepts a guideline dropping a field only held-out patterns need on dev, and rejects it on grouped', async () => {
    // T_obs 256 (default 1024): the short tasks' observations are then compressed, so the
    // guideline's drops reach the agent.
    const env = makeEnv({ provider: 'sim', shortTasks: true, config: { context: { t_obs: 256 } } });
    const all = await env.bench.listTasks();
    const of = (split: string) => all.filter((t) => t.split === split);
    const old = of('dev').slice(0, 16);
    const grouped = groupedSelection([...of('train'), ...of('dev')], 16, env.config.seed);
    const uses = (ts: TaskInfo[], p: string) => ts.some((t) => taskPatterns(t).includes(p));
    for (const p of ['phone', 'shop']) {
      expect(uses(old, p), p).toBe(false);
      expect(grouped.heldOut).toContain(p);
      expect(uses(grouped.train, p), p).toBe(false);
    }

    env.store.createRun(simRun('shift'));
    const v0 = { obs: env.guidelines.get('obs-0000'), hist: env.guidelines.get('hist-0000') };
    const dropping = env.guidelines.write({
      kind: 'obs',
      parent: v0.obs.id,
      phase: 'co',
      run: null,
      text: `${v0.obs.text}\n\nDROP: created_at, address`,
    });
    const parent = makeCondition('acon', v0, 'obs');
    const candidate = makeCondition('acon', { obs: dropping, hist: v0.hist }, 'obs');
    const tasks = [...new Map([...old, ...grouped.select].map((t) => [t.id, t])).values()];
    await runRollouts({
      runId: 'shift',
      bench: env.bench,
      jobs: [parent, candidate].flatMap((condition) => tasks.map((task) => ({ condition, task }))),
      llm: env.llm,
      store: env.store,
      config: env.config,
    });
    const outcomes = (label: string, on: TaskInfo[]) => {
      const ids = new Set(on.map((t) => t.id));
      const rows = env.store.rollouts('shift', label).filter((r) => ids.has(r.task_id));
      expect(rows).toHaveLength(on.length);
      return new Map(
        rows.map((r) => [r.task_id, { success: r.success, tokens: r.peak_input_tokens }]),
      );
    };
    const decide = (on: TaskInfo[]) =>
      choosePaired(
        'co',
        [
          {
            id: dropping.id,
            pairs: pairOutcomes(outcomes(parent.label, on), outcomes(candidate.label, on)),
          },
        ],
        DEFAULT_DECISION,
      );

    const onDev = decide(old);
    expect(onDev.winner, onDev.reasons[dropping.id]).toBe(dropping.id);
    // It cut tokens and lost nothing there: nothing on dev reads an address.
    expect(onDev.decisions[dropping.id]!.losses).toBe(0);
    expect(onDev.decisions[dropping.id]!.candidateTokens).toBeLessThan(
      onDev.decisions[dropping.id]!.parentTokens,
    );

    const onGrouped = decide(grouped.select);
    expect(onGrouped.winner, onGrouped.reasons[dropping.id]).toBeNull();
    expect(onGrouped.reasons[dropping.id]).toMatch(/^drop beyond margin/);
    // Every task it lost uses a held-out pattern that no task of the old selection uses.
    const lost = pairOutcomes(
      outcomes(parent.label, grouped.select),
      outcomes(candidate.label, grouped.select),
    ).filter((p) => p.parentSuccess && !p.candidateSuccess);
    expect(lost.length).toBeGreaterThan(0);
    const byId = new Map(grouped.select.map((t) => [t.id, t]));
    const oldPatterns = new Set(old.flatMap(taskPatterns));
    for (const p of lost) {
      const mine = taskPatterns(byId.get(p.taskId)!);
      expect(
        mine.some((x) => grouped.heldOut.includes(x) && !oldPatterns.has(x)),
        p.taskId,
      ).toBe(true);
    }
  }, 300_000);
});

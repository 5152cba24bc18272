import type { GuidelinePair } from '../domain/index.js';
import { everyPair, runJobsIn, type Condition } from '../experiment/index.js';
import { conditionMetrics } from '../metrics/index.js';
import type { RunEnv } from '../experiment/index.js';
import type { TaskInfo } from '../bench/index.js';
import { DEFAULT_DECISION } from './decision-rule.js';
import { finalCondition } from './final-rows.js';
import { choosePair, PairCheckSchema, V0_PAIR, type PairCheck } from './pair-check.js';
import { selectionName, type OptimizeParams } from './params.js';

/**
 * The stage after the phases (pair-check.ts): the learned pair, each learned guideline with the
 * other's v0 (with `--target both`), and the v0 pair, on the selection split under the condition
 * they are deployed as; the rule picks what becomes active. Checkpoint `pair:result`; its
 * selection rollouts are the final table's own on that split (same conditions), so they are
 * not paid for twice.
 */
export async function checkPair(
  run: {
    env: RunEnv;
    params: OptimizeParams;
    runId: string;
    select: TaskInfo[];
    log: (line: string) => void;
    progress: (label: string, done: number, total: number, o?: { success: boolean } | null) => void;
  },
  start: GuidelinePair,
  learned: GuidelinePair,
): Promise<{ check: PairCheck; chosen: GuidelinePair }> {
  const { env, params, runId } = run;
  const options = pairOptions(params, start, learned);
  const recorded = env.store.getState(runId, 'pair:result', PairCheckSchema);
  const pick = (check: PairCheck) => ({
    check,
    chosen: options.find((o) => o.name === check.chosen)?.pair ?? start,
  });
  if (recorded) return pick(recorded);
  const conditions = options.map((o) => finalCondition(params, o.pair));
  run.log(`pair: ${options.map((o) => o.name).join(', ')} together on ${selectionName(params)}`);
  await runJobsIn(env, {
    runId,
    jobs: everyPair(conditions, run.select),
    onRollout: (o, done, total) => run.progress(`pair ${selectionName(params)}`, done, total, o),
  });
  const ids = new Set(run.select.map((t) => t.id));
  const rowsOf = (c: Condition) =>
    env.store.rollouts(runId, c.label).filter((r) => ids.has(r.task_id));
  const outcomes = (c: Condition) =>
    new Map(rowsOf(c).map((r) => [r.task_id, { success: r.success, tokens: r.peak_input_tokens }]));
  const v0 = outcomes(conditions[conditions.length - 1]!);
  const judged = choosePair(
    v0,
    options.slice(0, -1).map((o, i) => ({ name: o.name, outcomes: outcomes(conditions[i]!) })),
    params.decision ?? DEFAULT_DECISION,
  );
  const check: PairCheck = {
    split: selectionName(params),
    tasks: v0.size,
    options: options.map((o, i) => {
      const m = conditionMetrics(
        conditions[i]!.label,
        rowsOf(conditions[i]!).map((r) => r.metrics),
        { seed: env.config.seed },
      );
      const line = judged.lines.find((l) => l.name === o.name);
      return {
        name: o.name,
        label: conditions[i]!.label,
        accuracy: m.accuracy,
        peakTokens: m.meanPeakTokens,
        eligible: line?.eligible ?? true,
        reason: line?.reason ?? 'the reference every option is compared with',
      };
    }),
    chosen: judged.chosen,
    verdict: judged.verdict,
  };
  env.store.setState(runId, 'pair:result', check);
  run.log(`pair: ${check.verdict}`);
  return pick(check);
}

/** How many options pairOptions gives at most (v0 included): what the plan counts. */
export function pairOptionsAtMost(target: OptimizeParams['target']): number {
  return target === 'both' ? 4 : 2;
}

/**
 * The options, the v0 pair last; an option that is the same guidelines as one before it (a
 * compressor whose phases accepted nothing) is left out.
 */
function pairOptions(
  params: OptimizeParams,
  start: GuidelinePair,
  learned: GuidelinePair,
): { name: string; pair: GuidelinePair }[] {
  const all =
    params.target === 'both'
      ? [
          { name: 'learned pair', pair: learned },
          { name: 'obs learned, hist v0', pair: { obs: learned.obs, hist: start.hist } },
          { name: 'obs v0, hist learned', pair: { obs: start.obs, hist: learned.hist } },
        ]
      : [{ name: `learned ${params.target}`, pair: learned }];
  const key = (p: GuidelinePair) => finalCondition(params, p).label;
  const v0Key = key(start);
  const seen = new Set<string>([v0Key]);
  const out: { name: string; pair: GuidelinePair }[] = [];
  for (const o of all) {
    if (seen.has(key(o.pair))) continue;
    seen.add(key(o.pair));
    out.push(o);
  }
  return [...out, { name: V0_PAIR, pair: start }];
}

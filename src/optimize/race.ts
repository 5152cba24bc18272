import { z } from 'zod';
import type { TaskInfo } from '../bench/index.js';
import type { Condition } from '../experiment/index.js';
import { runJobsIn } from '../experiment/index.js';
import { infraFailures } from '../store/index.js';
import { decideCompression, decideUtility, type DecisionParams } from './decision-rule.js';
import { pairOutcomes } from './paired-selection.js';
import { canStillBeAccepted, halvingRungs, rankContenders, type Contender } from './racing.js';
import type { PhaseContext, Stage } from './stage.js';

/** A task's outcome in one condition: what the paired rule reads. */
export type TaskOutcome = { success: boolean; tokens: number };

/**
 * How a stage was raced, kept for `--resume`: successive halving, or (stages raced before it)
 * rounds of as many tasks as filled the recorded `run.concurrency`, with elimination only.
 */
const RaceRecordSchema = z.union([
  z.object({ scheme: z.literal('halving') }),
  z.object({ concurrency: z.number().int().min(1) }),
]);
type RaceRecord = z.infer<typeof RaceRecordSchema>;

/** What racing decided about the candidates it dropped: the report line's reason, by label. */
export type RaceDrops = Map<string, string>;

/**
 * Racing by successive halving (issue 56, docs/method.md, racing.ts): the candidates run the
 * seeded order rung by rung (halvingRungs: 2, 4, 8, 16 of 16 tasks for five candidates), every
 * rung's rollouts concurrently; once the whole rung is stored, each is judged on the tasks it has
 * run. First a candidate that no outcome of the remaining tasks could get accepted is dropped
 * (the elimination of racing, racing.ts canStillBeAccepted); then, of those left, only the
 * better half of the rung's entrants (⌈m/2⌉, by rankContenders) go on. The judgement waits for
 * the rung, so who is dropped, where and why are a function of the stored outcomes alone, never
 * of which rollout finished first, and a `--resume` replays the same rungs over the stored
 * rollouts and re-derives the same drops. Tasks the infrastructure lost (for the parent or a
 * candidate still running) are left out of every judgement, as they are out of the final
 * comparison. After the last rung nobody is dropped: the rule judges the survivors.
 */
export async function raceCandidates(
  pc: PhaseContext,
  stage: Stage,
  label: string,
  conditions: Condition[],
  order: TaskInfo[],
  parent: ReadonlyMap<string, TaskOutcome>,
  decision: DecisionParams,
  names: ReadonlyMap<string, string>,
): Promise<RaceDrops> {
  const record = raceRecord(pc, stage);
  const rungs = 'scheme' in record ? halvingRungs(order.length, conditions.length) : null;
  const dropped: RaceDrops = new Map();
  let live = [...conditions];
  const total = conditions.length * order.length;
  let done = 0;
  for (let pos = 0, rung = 1; pos < order.length && live.length > 0; rung++) {
    const next = rungs
      ? rungs.find((r) => r > pos)!
      : pos +
        Math.max(1, Math.floor((record as { concurrency: number }).concurrency / live.length));
    const before = done;
    await runJobsIn(pc.env, {
      runId: pc.runId,
      jobs: order
        .slice(pos, next)
        .flatMap((task) => live.map((condition) => ({ condition, task }))),
      concurrency: pc.env.config.run.concurrency,
      onRollout: (o, n) => {
        done = before + n;
        pc.progress(label, done, total, o);
      },
    });
    pos = Math.min(order.length, next);
    // After the last rung nothing is left to save: the rule itself judges every survivor.
    if (pos >= order.length) break;
    const entrants = live.length;
    const judged = judgeRung(
      pc,
      stage,
      { live, names, order, pos, parent },
      decision,
      rungs !== null,
    );
    const where = rungs ? ` at rung ${rung} of ${rungs.length}` : '';
    for (const [c, why] of judged.drops) {
      const reason = `dropped by racing after ${pos}/${order.length} tasks${where} (${order.length - pos} rollouts saved): ${why}`;
      dropped.set(c, reason);
      pc.log(`${label}: ${names.get(c) ?? c} ${reason}`);
    }
    live = live.filter((c) => !judged.drops.has(c.label));
    // The skipped rollouts count as done, as runRollouts counts a skipped job.
    done += (order.length - pos) * (entrants - live.length);
    pc.progress(label, done, total, null);
  }
  return dropped;
}

/** The stage's race record: the one it was started with, or (a new race) halving, recorded. */
function raceRecord(pc: PhaseContext, stage: Stage): RaceRecord {
  const key = `${stage.name}:race`;
  const recorded = pc.env.store.getState(pc.runId, key, RaceRecordSchema);
  if (recorded) return recorded;
  const fresh: RaceRecord = { scheme: 'halving' };
  pc.env.store.setState(pc.runId, key, fresh);
  return fresh;
}

/**
 * One rung's judgement of the candidates still running, on the first `pos` tasks of the order
 * that the infrastructure lost for none of them: elimination, then (`halve`) the better half.
 * Returns the dropped labels with why.
 */
function judgeRung(
  pc: PhaseContext,
  stage: Stage,
  at: {
    live: Condition[];
    /** Each condition's candidate id, as the report names it. */
    names: ReadonlyMap<string, string>;
    order: TaskInfo[];
    pos: number;
    parent: ReadonlyMap<string, TaskOutcome>;
  },
  decision: DecisionParams,
  halve: boolean,
): { drops: Map<string, string> } {
  const { live, names, order, pos, parent } = at;
  const name = (c: Condition) => names.get(c.label) ?? c.label;
  const ids = new Set(order.map((t) => t.id));
  const labels = new Set([stage.compressed.label, ...live.map((c) => c.label)]);
  const lost = new Set(
    infraFailures(pc.env.store, pc.runId)
      .filter((f) => labels.has(f.condition) && ids.has(f.taskId))
      .map((f) => f.taskId),
  );
  const ran = new Set(order.slice(0, pos).map((t) => t.id));
  const remaining = order
    .slice(pos)
    .filter((t) => !lost.has(t.id))
    .map((t) => parent.get(t.id))
    .filter((p) => p !== undefined)
    .map((p) => ({ parentSuccess: p.success, parentTokens: p.tokens }));
  const judged = new Map([...parent].filter(([id]) => ran.has(id) && !lost.has(id)));
  const decide = stage.phase === 'ut' ? decideUtility : decideCompression;
  const drops = new Map<string, string>();
  const left: Contender[] = [];
  for (const c of live) {
    const done = pairOutcomes(judged, outcomesOf(pc, c, ids));
    if (canStillBeAccepted(stage.phase, { done, remaining }, decision))
      left.push({ label: name(c), done });
    else {
      const solved = done.filter((o) => o.candidateSuccess).length;
      drops.set(
        c.label,
        `no outcome of the ${remaining.length} tasks left could get it accepted (${solved} of ${done.length} solved so far)`,
      );
    }
  }
  if (!halve) return { drops };
  const keep = Math.ceil(live.length / 2);
  const ranked = rankContenders(stage.phase, left, decision);
  const labelOf = new Map(live.map((c) => [name(c), c.label]));
  for (const [i, c] of ranked.entries()) {
    if (i < keep) continue;
    const d = decide(left.find((x) => x.label === c)!.done, decision);
    drops.set(
      labelOf.get(c)!,
      `successive halving keeps the better ${keep} of the ${live.length} that ran this rung; ` +
        `ranked ${i + 1} of ${ranked.length} (kept: ${ranked.slice(0, keep).join(', ')}); so far ${d.reason}`,
    );
  }
  return { drops };
}

/** A condition's stored outcome on each of `ids` (peak input tokens: the rule's token measure). */
export function outcomesOf(
  pc: PhaseContext,
  c: Condition,
  ids: ReadonlySet<string>,
): Map<string, TaskOutcome> {
  return new Map(
    pc.env.store
      .rollouts(pc.runId, c.label)
      .filter((r) => ids.has(r.task_id))
      .map((r) => [r.task_id, { success: r.success, tokens: r.peak_input_tokens }]),
  );
}

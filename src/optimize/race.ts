import { z } from 'zod';
import type { TaskInfo } from '../bench/index.js';
import type { Condition } from '../experiment/index.js';
import { runRollouts } from '../experiment/index.js';
import { infraFailures } from '../store/index.js';
import type { DecisionParams } from './decision-rule.js';
import { pairOutcomes } from './paired-selection.js';
import { canStillBeAccepted } from './racing.js';
import type { PhaseContext, Stage } from './stage.js';

/** A task's outcome in one condition: what the paired rule reads. */
export type TaskOutcome = { success: boolean; tokens: number };

/** The rollouts in flight at once the stage's race was planned with (kept for `--resume`). */
const RaceRecordSchema = z.object({ concurrency: z.number().int().min(1) });

/**
 * Racing in rounds (issue 56, docs/method.md): every candidate still in the race runs the next
 * tasks of the seeded order, all of a round concurrently; once the whole round is stored, each
 * is judged on the tasks it has run (racing.ts) and dropped when no outcome of the rest could
 * get it accepted. The judgement waits for the round, so who is dropped, where, and the tally
 * it leaves are a function of the rollouts' outcomes alone, never of which rollout of a round
 * finished first; a `--resume` replays the same rounds over the stored rollouts and re-derives
 * the same. A round holds as many tasks as fill the machine, `run.concurrency` rollouts over
 * the candidates still running (at least one task each: the F-race step, every survivor on the
 * next instance); the concurrency is recorded with the stage so a resume plans the same rounds.
 * Tasks the infrastructure lost (for the parent or a candidate still running) are left out of
 * every judgement, as they are out of the final comparison. Returns the dropped labels.
 */
export async function raceCandidates(
  pc: PhaseContext,
  stage: Stage,
  label: string,
  conditions: Condition[],
  order: TaskInfo[],
  parent: ReadonlyMap<string, TaskOutcome>,
  decision: DecisionParams,
): Promise<Set<string>> {
  const { store } = pc.env;
  const key = `${stage.name}:race`;
  const recorded = store.getState(pc.runId, key, RaceRecordSchema);
  const concurrency = recorded?.concurrency ?? pc.env.config.run.concurrency;
  if (!recorded) store.setState(pc.runId, key, { concurrency });
  const ids = new Set(order.map((t) => t.id));
  const dropped = new Set<string>();
  let live = [...conditions];
  const total = conditions.length * order.length;
  let done = 0;
  for (let pos = 0; pos < order.length && live.length > 0;) {
    const round = order.slice(pos, pos + Math.max(1, Math.floor(concurrency / live.length)));
    const before = done;
    await runRollouts({
      runId: pc.runId,
      bench: pc.env.bench,
      jobs: round.flatMap((task) => live.map((condition) => ({ condition, task }))),
      llm: pc.env.llm,
      store,
      config: pc.env.config,
      concurrency,
      signal: pc.env.abort.signal,
      onRollout: (o, n) => {
        done = before + n;
        pc.progress(label, done, total, o);
      },
    });
    pos += round.length;
    // After the last round nothing is left to save: the rule itself judges every survivor.
    if (pos >= order.length) break;
    const labels = new Set([stage.compressed.label, ...live.map((c) => c.label)]);
    const lost = new Set(
      infraFailures(store, pc.runId)
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
    live = live.filter((c) => {
      const mine = outcomesOf(pc, c, ids);
      const s = { done: pairOutcomes(judged, mine), remaining };
      if (canStillBeAccepted(stage.phase, s, decision)) return true;
      dropped.add(c.label);
      const solved = s.done.filter((o) => o.candidateSuccess).length;
      pc.log(
        `${label}: ${c.label} dropped by racing after ${s.done.length} tasks ` +
          `(${solved} solved): no outcome of the ${remaining.length} left could get it accepted`,
      );
      return false;
    });
    // The skipped rollouts count as done, as runRollouts counts a skipped job.
    done += (order.length - pos) * (labels.size - 1 - live.length);
    pc.progress(label, done, total, null);
  }
  return dropped;
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

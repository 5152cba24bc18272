import type { GuidelinePair } from '../domain/index.js';
import { GuidelinePairSchema } from '../domain/index.js';
import { promotePair, PromotionSchema, resolveGuidelinePair } from '../guidelines/index.js';
import type { RunEnv } from '../experiment/index.js';

/**
 * The guidelines of one optimize run, from recorded rollouts or from recorded conversations
 * alike: the pair it starts from, the files it wrote, the pair it makes active.
 */

/**
 * The run's starting pair: `guidelines` (a pair spec, null for the active ones) resolved on the
 * first attempt and recorded, so a resume starts from the same versions whatever is active then.
 */
export async function startingPair(
  env: RunEnv,
  runId: string,
  guidelines: string | null,
): Promise<GuidelinePair> {
  let start = env.store.getState(runId, 'start', GuidelinePairSchema);
  if (!start) {
    start = await resolveGuidelinePair(guidelines, env.guidelines);
    env.store.setState(runId, 'start', start);
  }
  return start;
}

/** Makes `pair` active, once: the promotion is recorded in the run, so a resume does not redo it. */
export function promoteOnce(env: RunEnv, runId: string, pair: GuidelinePair): string[] {
  return promotePair(env.guidelines, pairIds(pair), {
    get: () => env.store.getState(runId, 'promotion', PromotionSchema),
    set: (p) => env.store.setState(runId, 'promotion', p),
  });
}

/** A pair by its versions' ids (`obs-0003`, `hist-0002`), as a run's summary records it. */
export function pairIds(pair: GuidelinePair): { obs: string; hist: string } {
  return { obs: pair.obs.id, hist: pair.hist.id };
}

/** The guideline files the run wrote, as the user would type their paths. */
export function runGuidelineFiles(env: RunEnv, runId: string): string[] {
  return env.guidelines
    .list()
    .filter((g) => g.run === runId)
    .map((g) => env.guidelines.displayPath(g.path));
}

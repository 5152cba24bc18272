import {
  CandidateSlotsSchema,
  reserveCandidates,
  writeCandidates,
  type CandidateSlot,
} from '../guidelines/index.js';
import { sampleStable, seededRandom } from '../seeded-random.js';
import type { UsableAnalysis } from './stage-analyses.js';
import type { PhaseContext, Stage } from './stage.js';
import { proposeCandidates, withoutRepeats } from './update.js';

/** One updater proposal: its guideline id (null when nothing usable came back) and why it is invalid. */
export type CandidateSlots = CandidateSlot[];

/**
 * Stage 3, candidates: each of the K updater calls gets its own seeded sample of at most
 * `optimize.feedback_sample` analyses (the reference draws a fresh random sample of up to 30 per
 * candidate), so candidates differ by what they learn from, not only by sampling temperature.
 * Each proposal is written as a versioned file (invalid ones as `rejected`, with the reason)
 * that records the analyses it was written from; one that repeats its parent's or an earlier
 * proposal's text gets none and is not evaluated (update.ts, `withoutRepeats`).
 * Checkpoint: `<stage>:candidates` with the guideline ids.
 */
export async function stageCandidates(
  pc: PhaseContext,
  stage: Stage,
  usable: UsableAnalysis[],
): Promise<CandidateSlots> {
  const { env, runId } = pc;
  const key = `${stage.name}:candidates`;
  let slots = env.store.getState(runId, key, CandidateSlotsSchema);
  if (!slots) {
    const samples = feedbackSamples(usable, pc.candidates, env.config.optimize.feedback_sample, [
      env.config.seed,
      stage.name,
    ]);
    pc.log(
      `${stage.name}: updater writes ${pc.candidates} candidates, each from its own sample of ` +
        `${Math.min(usable.length, env.config.optimize.feedback_sample)} of ${usable.length} analyses`,
    );
    const proposed = await proposeCandidates({
      llm: env.llm,
      ctx: { runId },
      phase: stage.phase,
      kind: stage.kind,
      guideline: stage.parent.text,
      samples: samples.map((sample) =>
        sample.map((a) => ({ task: a.taskId, ...(a.analysis as object) })),
      ),
      maxRetries: env.config.agent.max_output_retries,
    });
    const proposals = withoutRepeats(proposed, stage.parent);
    for (const p of proposals.filter((x) => !x.ok)) {
      pc.log(`${stage.name}: candidate ${p.index + 1} rejected: ${p.reason}`);
    }
    // Ids are recorded in the run before any file is written; the files follow (issue #17).
    slots = reserveCandidates(
      pc.guidelines,
      {
        kind: stage.kind,
        parent: stage.parent.id,
        phase: stage.phase,
        run: runId,
        bench: env.bench.name,
        analysesOf: (index) =>
          (samples[index] ?? []).map((a) => summarizeAnalysis(a.taskId, a.analysis)),
        slugOf: (index) => `${stage.phase}-r${stage.round}-c${index + 1}`,
      },
      proposals,
    );
    env.store.setState(runId, key, slots);
  }
  writeCandidates(pc.guidelines, slots);
  return slots;
}

/**
 * K seeded samples of at most `size` analyses, one per updater call (sample i is seeded by the
 * run seed, the stage and i, so a re-run draws the same ones and the K differ).
 */
export function feedbackSamples<T>(
  usable: readonly T[],
  k: number,
  size: number,
  seed: (string | number)[],
): T[][] {
  return Array.from({ length: k }, (_, i) =>
    sampleStable(usable, size, seededRandom(...seed, `candidate ${i + 1}`)),
  );
}

function summarizeAnalysis(taskId: string, analysis: unknown): string {
  const a = analysis as {
    remediation?: string;
    missing_facts?: { field?: string }[];
    unused_fields?: string[];
  };
  const fields = a.missing_facts?.map((f) => f.field).filter(Boolean) ?? a.unused_fields ?? [];
  const what = fields.length > 0 ? ` [${fields.join(', ')}]` : '';
  return `${taskId}${what}: ${(a.remediation ?? '').slice(0, 200)}`;
}

import {
  CandidateSlotsSchema,
  reserveCandidates,
  writeCandidates,
  type CandidateSlot,
} from '../guidelines/candidates.js';
import { sampleStable, seededRandom } from '../seeded-random.js';
import type { UsableAnalysis } from './stage-analyses.js';
import type { PhaseContext, Stage } from './stage.js';
import { proposeCandidates } from './update.js';

/** One updater proposal: its guideline id (null when nothing usable came back) and why it is invalid. */
export type CandidateSlots = CandidateSlot[];

/**
 * Stage 3, candidates: the updater writes K guidelines from a seeded sample of the analyses;
 * each is written as a versioned file (invalid ones as `rejected`, with the reason).
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
    const sample = sampleStable(
      usable,
      env.config.optimize.max_analyses,
      seededRandom(env.config.seed, stage.name),
    );
    pc.log(
      `${stage.name}: updater writes ${pc.candidates} candidates from ${sample.length} analyses`,
    );
    const proposals = await proposeCandidates({
      llm: env.llm,
      ctx: { runId },
      phase: stage.phase,
      kind: stage.kind,
      guideline: stage.parent.text,
      analyses: sample.map((a) => ({ task: a.taskId, ...(a.analysis as object) })),
      k: pc.candidates,
      maxRetries: env.config.agent.max_output_retries,
    });
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
        analyses: sample.map((a) => summarizeAnalysis(a.taskId, a.analysis)),
        slugOf: (index) => `${stage.phase}-r${stage.round}-c${index + 1}`,
      },
      proposals,
    );
    env.store.setState(runId, key, slots);
  }
  writeCandidates(pc.guidelines, slots);
  return slots;
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

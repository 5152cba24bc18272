import { z } from 'zod';
import type { GuidelineStore, NewGuideline } from './store.js';
import { GuidelineKindSchema, GuidelinePhaseSchema, GuidelineStatusSchema } from './schema.js';

/**
 * One updater proposal and the guideline version it becomes. The whole slot is checkpointed in
 * the run before its file is written (issue #17), so a resumed run writes exactly the files
 * the killed one meant to: same ids, same texts.
 */
export const CandidateSlotSchema = z.object({
  index: z.number(),
  /** null: an empty proposal, never written. */
  id: z.string().nullable(),
  /** Why the proposal is invalid; null for a valid candidate. */
  reason: z.string().nullable(),
  /** The version to write under `id`; absent in checkpoints of older runs (file already written). */
  version: z
    .object({
      kind: GuidelineKindSchema,
      parent: z.string().nullable(),
      phase: GuidelinePhaseSchema,
      run: z.string().nullable(),
      /** Absent in checkpoints written before versions recorded their benchmark. */
      bench: z.string().optional(),
      status: GuidelineStatusSchema,
      analyses: z.array(z.string()),
      rationale: z.string().optional(),
      slug: z.string(),
      text: z.string(),
    })
    .optional(),
});
export type CandidateSlot = z.infer<typeof CandidateSlotSchema>;
export const CandidateSlotsSchema = z.array(CandidateSlotSchema);

/** An updater proposal (src/optimize/update.ts): a valid text, or an invalid one and why. */
export type CandidateProposal =
  | { index: number; ok: true; text: string; rationale: string }
  | { index: number; ok: false; reason: string; text: string };

/**
 * Gives each proposal a version id (valid ones as `candidate`, invalid non-empty ones as
 * `rejected`, for review) without writing anything; record the slots, then
 * {@link writeCandidates}.
 */
export function reserveCandidates(
  guidelines: GuidelineStore,
  base: Pick<NewGuideline, 'kind' | 'parent' | 'phase' | 'run' | 'bench'> & {
    /** The analyses proposal `index` was written from (each updater call has its own sample). */
    analysesOf: (index: number) => string[];
    slugOf: (index: number) => string;
  },
  proposals: readonly CandidateProposal[],
): CandidateSlot[] {
  const written = proposals.filter((p) => p.ok || p.text.trim() !== '');
  const ids = guidelines.reserveIds(base.kind, written.length);
  return proposals.map((p) => {
    const at = written.indexOf(p);
    if (at < 0) return { index: p.index, id: null, reason: p.ok ? null : p.reason };
    return {
      index: p.index,
      id: ids[at]!,
      reason: p.ok ? null : p.reason,
      version: {
        kind: base.kind,
        parent: base.parent,
        phase: base.phase,
        run: base.run,
        ...(base.bench !== undefined && { bench: base.bench }),
        status: p.ok ? 'candidate' : 'rejected',
        analyses: base.analysesOf(p.index),
        rationale: p.ok ? p.rationale : p.reason,
        slug: base.slugOf(p.index),
        text: p.text,
      },
    };
  });
}

/** Writes the file of every recorded slot that has none yet (all of them, or what a kill left). */
export function writeCandidates(guidelines: GuidelineStore, slots: readonly CandidateSlot[]): void {
  for (const slot of slots) {
    if (slot.id === null || !slot.version || guidelines.find(slot.id)) continue;
    const { rationale, ...version } = slot.version;
    guidelines.write({ ...version, ...(rationale !== undefined && { rationale }), id: slot.id });
  }
}

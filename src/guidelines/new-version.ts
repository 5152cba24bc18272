import { GuidelineError } from '../errors.js';
import {
  GuidelineSchema,
  type Guideline,
  type GuidelineKind,
  type GuidelineMetrics,
  type GuidelinePhase,
  type GuidelineStatus,
} from './schema.js';

/** What {@link GuidelineStore.write} needs; the store assigns the id and the creation time. */
export type NewGuideline = {
  kind: GuidelineKind;
  parent: string | null;
  phase: GuidelinePhase;
  run: string | null;
  /** The benchmark it was learned on (optimize); omit for hand-written versions. */
  bench?: string;
  /** @default 'accepted' */
  status?: GuidelineStatus;
  metrics?: GuidelineMetrics;
  analyses?: string[];
  rationale?: string;
  text: string;
  /** Part of the file name after the number, e.g. `ut-r1-c2`. @default the phase */
  slug?: string;
  /** An id taken earlier with {@link GuidelineStore.reserveIds}. @default the next free id */
  id?: string;
};

/**
 * The record a new version's file will hold, checked against the schema before anything is
 * written: the caller's fields with the id, kind, creation time and defaults the store sets.
 *
 * @throws GuidelineError naming the first invalid field of the file at `at.path`
 */
export function newVersion(
  input: NewGuideline,
  at: { id: string; kind: GuidelineKind; created: string; path: string },
): Guideline {
  const { id, kind, path } = at;
  const parsed = GuidelineSchema.safeParse({
    id,
    kind,
    parent: input.parent,
    phase: input.phase,
    run: input.run,
    ...(input.bench !== undefined && { bench: input.bench }),
    status: input.status ?? 'accepted',
    created: at.created,
    metrics: input.metrics ?? {},
    ...(input.analyses !== undefined && { analyses: input.analyses }),
    ...(input.rationale !== undefined && { rationale: input.rationale }),
    text: input.text,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GuidelineError(
      path,
      issue?.path.map(String).join('.') || 'guideline',
      `${issue?.message ?? 'invalid'}; the version was not written`,
      { cause: parsed.error },
    );
  }
  return parsed.data;
}

import type { GuidelinePair } from '../domain/index.js';
import { InvalidInputError } from '../errors.js';
import type { GuidelineKind } from './schema.js';
import { GuidelineStore, type StoredGuideline } from './store.js';

/** What the errors of a guideline pair's spec are about (`InvalidInputError.what`). */
export const GUIDELINE_PAIR = 'guideline pair';

/**
 * The guideline pair of a spec: comma-separated version refs, at most one per
 * kind (`obs@3,hist@active`, `obs-0002`, a file path); a kind left out uses its active version.
 * `null`, `''` or `active` means both active; `latest` means both latest.
 *
 * @example await resolveGuidelinePair('obs@2') // { obs: obs-0002, hist: the active hist }
 * @throws InvalidInputError (what: {@link GUIDELINE_PAIR}) for a malformed spec, an unknown version
 *   or two versions of one kind; NotFoundError for a missing version
 */
export async function resolveGuidelinePair(
  spec: string | null | undefined,
  store: GuidelineStore = new GuidelineStore(),
): Promise<GuidelinePair> {
  const raw = (spec ?? '').trim();
  const refs =
    raw === '' || raw === 'active' || raw === 'latest'
      ? [`obs@${raw || 'active'}`, `hist@${raw || 'active'}`]
      : raw.split(',').map((r) => r.trim());
  const chosen: Partial<Record<GuidelineKind, StoredGuideline>> = {};
  const invalid = (message: string, cause?: InvalidInputError) =>
    new InvalidInputError(
      message,
      { what: GUIDELINE_PAIR, value: raw, ...(cause && { valid: cause.valid }) },
      { cause },
    );
  for (const ref of refs) {
    if (ref === '') throw invalid(`empty version in guideline pair "${raw}"`);
    const g = versionOf(store, ref, invalid);
    const already = chosen[g.kind];
    if (already) {
      throw invalid(
        `guideline pair "${raw}" names two ${g.kind} versions (${already.id} and ${g.id}); give one per kind, e.g. obs@3,hist@active`,
      );
    }
    chosen[g.kind] = g;
  }
  const pick = (kind: GuidelineKind) => {
    const g = chosen[kind] ?? store.active(kind);
    return { id: g.id, text: g.text };
  };
  return { obs: pick('obs'), hist: pick('hist') };
}

/** The version a ref names; an unknown one is an error of the pair, with the versions there are. */
function versionOf(
  store: GuidelineStore,
  ref: string,
  invalid: (message: string, cause: InvalidInputError) => InvalidInputError,
): StoredGuideline {
  try {
    return store.get(ref);
  } catch (err) {
    if (err instanceof InvalidInputError) throw invalid(err.message, err);
    throw err;
  }
}

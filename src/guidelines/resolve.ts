import type { GuidelinePair } from '../agent/index.js';
import { UsageError } from '../errors.js';
import type { GuidelineKind } from './schema.js';
import { GuidelineStore, type StoredGuideline } from './store.js';

/**
 * The guideline pair for a `--guidelines` spec: comma-separated version refs, at most one per
 * kind (`obs@3,hist@active`, `obs-0002`, a file path); a kind left out uses its active version.
 * `null`, `''` or `active` means both active; `latest` means both latest.
 *
 * @example await resolveGuidelinePair('obs@2') // { obs: obs-0002, hist: the active hist }
 * @throws UsageError for a malformed spec or two versions of one kind; NotFoundError for a missing version
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
  for (const ref of refs) {
    if (ref === '') throw new UsageError(`empty version in --guidelines "${raw}"`);
    const g = store.get(ref);
    const already = chosen[g.kind];
    if (already) {
      throw new UsageError(
        `--guidelines names two ${g.kind} versions (${already.id} and ${g.id}); give one per kind, e.g. obs@3,hist@active`,
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

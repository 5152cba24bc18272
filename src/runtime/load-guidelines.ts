import type { GuidelinePair } from '../domain/index.js';
import { resolveGuidelinePair, GuidelineStore } from '../guidelines/index.js';

/** A guideline pair for the compressors: P_obs and P_hist, each its version id and text. */
export type Guidelines = GuidelinePair;

export type LoadGuidelinesOptions = {
  /** The guidelines folder (`<dir>/obs/NNNN-*.md`, `<dir>/hist/…`, `ACTIVE`). @default './guidelines' */
  dir?: string;
};

/**
 * Reads a guideline pair: comma-separated versions, at most one per kind (`obs@active`,
 * `hist@3`, `obs-0002`, or the path of a guideline file); a kind left out uses its active
 * version. Without a guidelines folder the generic v0 guidelines shipped with acon are used.
 *
 * @example await loadGuidelines('obs@active,hist@active', { dir: './guidelines' })
 * @default spec 'active' (both active versions)
 */
export async function loadGuidelines(
  spec = 'active',
  opts: LoadGuidelinesOptions = {},
): Promise<Guidelines> {
  return resolveGuidelinePair(spec, new GuidelineStore(opts.dir ? { dir: opts.dir } : {}));
}

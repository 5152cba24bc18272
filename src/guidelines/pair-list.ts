import type { GuidelinePair } from '../domain/index.js';
import { InvalidInputError } from '../errors.js';
import { GUIDELINE_PAIR, resolveGuidelinePair } from './resolve.js';
import type { GuidelineStore } from './store.js';

/** One named pair of a list of guideline pairs. */
export type NamedPair = { label: string; pair: GuidelinePair };

/**
 * The pairs of a list that compares several (`acon replay --guidelines LIST`): comma-separated items,
 * each `v0` (both shipped v0 versions), `active`, `latest`, one version (`obs-0002`, `obs@2`: the
 * other kind active), or a pair joined by `+` (`obs@2+hist@1`).
 *
 * @example await resolvePairList('v0,active', store) // [{label: 'v0', …}, {label: 'active', …}]
 * @throws InvalidInputError (what: {@link GUIDELINE_PAIR}) for an empty list, a repeated item or a
 *   bad pair; NotFoundError for a missing version
 */
export async function resolvePairList(list: string, store: GuidelineStore): Promise<NamedPair[]> {
  const items = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const invalid = (message: string) =>
    new InvalidInputError(message, { what: GUIDELINE_PAIR, value: list });
  if (items.length === 0) {
    throw invalid(
      `the list of guideline pairs "${list}" names no pair; give e.g. v0,active or obs@2+hist@1`,
    );
  }
  const seen = new Set<string>();
  const out: NamedPair[] = [];
  for (const item of items) {
    if (seen.has(item)) throw invalid(`the list of guideline pairs names "${item}" twice`);
    seen.add(item);
    const spec = item === 'v0' ? 'obs@0,hist@0' : item.split('+').join(',');
    out.push({ label: item, pair: await resolveGuidelinePair(spec, store) });
  }
  return out;
}

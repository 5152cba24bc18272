import type { GuidelinePair } from '../agent/index.js';
import { UsageError } from '../errors.js';
import { resolveGuidelinePair } from './resolve.js';
import type { GuidelineStore } from './store.js';

/** One named pair of a `--guidelines` list. */
export type NamedPair = { label: string; pair: GuidelinePair };

/**
 * The pairs of a `--guidelines LIST` that compares several (`acon replay`): comma-separated items,
 * each `v0` (both shipped v0 versions), `active`, `latest`, one version (`obs-0002`, `obs@2`: the
 * other kind active), or a pair joined by `+` (`obs@2+hist@1`).
 *
 * @example await resolvePairList('v0,active', store) // [{label: 'v0', …}, {label: 'active', …}]
 * @throws UsageError for an empty list or a repeated item; NotFoundError for a missing version
 */
export async function resolvePairList(list: string, store: GuidelineStore): Promise<NamedPair[]> {
  const items = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) {
    throw new UsageError(`--guidelines lists no pair; give e.g. v0,active or obs@2+hist@1`);
  }
  const seen = new Set<string>();
  const out: NamedPair[] = [];
  for (const item of items) {
    if (seen.has(item)) throw new UsageError(`--guidelines names "${item}" twice`);
    seen.add(item);
    const spec = item === 'v0' ? 'obs@0,hist@0' : item.split('+').join(',');
    out.push({ label: item, pair: await resolveGuidelinePair(spec, store) });
  }
  return out;
}

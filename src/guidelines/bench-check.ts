import type { GuidelineStore } from './store.js';

/**
 * One warning line when guideline versions learned on one benchmark are used on another
 * (issue #24: `compare --bench qa` silently applied guidelines learned on apptown). Versions
 * without a benchmark (the shipped seeds, hand-written ones) never warn.
 */
export function foreignBenchWarning(
  store: Pick<GuidelineStore, 'find'>,
  ids: readonly string[],
  bench: string,
): string | null {
  const foreign = ids
    .map((id) => ({ id, bench: store.find(id)?.bench }))
    .filter((g): g is { id: string; bench: string } => g.bench !== undefined && g.bench !== bench);
  if (foreign.length === 0) return null;
  const learned = [...new Set(foreign.map((g) => g.bench))].join(' and ');
  return (
    `${foreign.map((g) => g.id).join(' and ')} ${foreign.length > 1 ? 'were' : 'was'} learned on ${learned}, ` +
    `not on ${bench}; learn ${bench}'s with \`acon optimize --bench ${bench}\` or pick versions with --guidelines`
  );
}

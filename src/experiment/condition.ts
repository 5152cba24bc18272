import type { ContextOptions, StrategyName } from '../agent/index.js';
import type { GuidelinePair } from '../domain/index.js';
import type { GuidelineKind } from '../guidelines/index.js';

/**
 * A condition is what a rollout is run under: a context strategy, plus the guideline versions
 * for `acon`/`naive`. Its label keys stored rollouts, so the same condition is never run twice
 * for the same task in one run (this is what --resume and candidate re-use rely on).
 *
 * `only` isolates one compressor (phase isolation, `optimize.isolate`): while a phase tunes the
 * obs guideline, history compression is off, and the other way round, so an analysis can only
 * blame the compressor under review. Its label shows the switched-off one as `-`:
 * `acon[obs-0003,-]`.
 */
export type Condition = {
  label: string;
  strategy: StrategyName;
  guidelines?: GuidelinePair;
  only?: GuidelineKind;
};

export function conditionLabel(
  strategy: StrategyName,
  guidelines?: GuidelinePair,
  only?: GuidelineKind,
): string {
  if (!guidelines || strategy !== 'acon') return strategy;
  const obs = only === 'hist' ? '-' : guidelines.obs.id;
  const hist = only === 'obs' ? '-' : guidelines.hist.id;
  return `acon[${obs},${hist}]`;
}

export function makeCondition(
  strategy: StrategyName,
  guidelines?: GuidelinePair,
  only?: GuidelineKind,
): Condition {
  return {
    label: conditionLabel(strategy, guidelines, only),
    strategy,
    guidelines,
    ...(only && strategy === 'acon' ? { only } : {}),
  };
}

/**
 * The context settings a condition runs with: under phase isolation, a threshold no context
 * reaches switches the other compressor off.
 */
export function isolatedContext(context: ContextOptions, only?: GuidelineKind): ContextOptions {
  return {
    ...context,
    ...(only === 'obs' ? { t_hist: Number.POSITIVE_INFINITY } : {}),
    ...(only === 'hist' ? { t_obs: Number.POSITIVE_INFINITY } : {}),
  };
}

import {
  CONDITION_METRIC_DEFINITIONS as C,
  ROLLOUT_METRIC_DEFINITIONS as R,
} from '../../metrics/index.js';

/** A metric as the page labels it, with the one definition the CLI's footnote prints too. */
export type PageDefinition = { label: string; text: string };

/**
 * The metrics the report page shows, under the labels of its tables and plots
 * (assets/report-page.js), each with its text from src/metrics/definitions.ts: the page and the
 * terminal cannot define a metric two ways (issue #58). Under sim the cost column is the full
 * cost (simulated calls are billed $0), so only that one is defined there.
 */
export function pageDefinitions(simulated: boolean): PageDefinition[] {
  return [
    { label: 'Pareto', text: C.pareto },
    { label: 'tasks', text: C.tasks },
    { label: 'accuracy [95% CI]', text: `${C.accuracy}, ${C.accuracyCi}` },
    { label: 'mean peak', text: C.meanPeakTokens },
    { label: 'peak vs raw', text: C.peakReductionVsRaw },
    { label: 'steps', text: C.meanSteps },
    simulated
      ? { label: 'full $/task', text: C.fullCostPerTask }
      : { label: 'billed $/task', text: C.costPerTask },
    { label: 'peak of a rollout (distributions, trajectories)', text: R.peakInputTokens },
    { label: 'steps of a rollout (distributions, trajectories)', text: R.steps },
  ];
}

import type * as ApptownModule from './apptown/index.js';
import type * as QaModule from './qa/index.js';
export type {
  PairKind,
  PairRule,
  PairSide,
  Benchmark,
  TaskInfo,
  ReferenceStep,
  ReferenceChoice,
  ReferencePlan,
  ChoiceCondition,
  NeedSelect,
  ReferenceNeed,
  NeedSource,
} from './types.js';
export {
  hasScenarios,
  openBench,
  BENCH_NAMES,
  resolveSplits,
  benchDefinition,
} from './registry.js';
export type { OpenBenchOptions } from './registry.js';
export { tasksOfSplit } from './task-filter.js';
export {
  isShapeItem,
  choiceFields,
  choiceCandidates,
  computeChoice,
  decideBranch,
} from './choice.js';
export type { Item } from './choice.js';
export { requireValidTasks } from './task-problems.js';
type ApptownModule = typeof ApptownModule;
type QaModule = typeof QaModule;

// Loaded on use: apptown's and qa's loaders bring the YAML parser and faker, which commands
// that never open a benchmark (`acon runs`, `acon report`) must not pay for (test/cli-startup.test.ts).
export function loadApptown(): Promise<ApptownModule> {
  return import('./apptown/index.js');
}
export function loadQa(): Promise<QaModule> {
  return import('./qa/index.js');
}

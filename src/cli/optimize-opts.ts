/** The flags of `acon optimize` as commander gives them (both the environment and the trace optimize read them). */
export type RawOpts = {
  bench: string;
  target: string;
  phases: string;
  rounds: string;
  candidates?: string;
  trainSplit?: string;
  selectSplit?: string;
  evalSplit?: string;
  guidelines?: string;
  maxTasks?: string;
  trainTasks?: string;
  selectTasks?: string;
  /** --promote / --no-promote; unset: promote unless the run is a trial. */
  promote?: boolean;
  dryRun?: boolean;
  resume?: string;
  provider?: 'sim' | 'openai';
  cache?: boolean;
  budgetUsd?: string;
  appworldUrl?: string[];
  qaData?: string;
  tasks?: string;
  taskFile?: string;
  db?: string;
  json?: boolean;
  confirmAbove?: string;
  yes?: boolean;
  wide?: boolean;
  config?: string;
  skipInvalidTasks?: boolean;
  allowTaskChanges?: boolean;
  selection?: 'heldout' | 'reference' | 'reference-paired';
  racing?: boolean;
  selectFrom?: 'split' | 'grouped';
  traces?: string;
  skipInvalid?: boolean;
};

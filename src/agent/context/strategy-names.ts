/**
 * The context strategies by name, without zod: `acon run --help` lists them, and the CLI's
 * start-up loads no schema library for that (issue #28). StrategyNameSchema is built from it.
 */
export const STRATEGY_NAMES = [
  'raw',
  'fifo',
  'masking',
  'summary',
  'retrieval',
  'naive',
  'acon',
] as const;

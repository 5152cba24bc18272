import type { Config } from '../config/index.js';
import { UsageError } from '../errors.js';
import type { Benchmark } from './types.js';

/**
 * The splits an optimize run uses when neither flags nor the config name them (ARCHITECTURE §4:
 * analyses see only `train`, candidates are chosen on `selection`, `evaluation` is touched only
 * by the final table).
 */
export type DefaultSplits = { train: string; selection: string; evaluation: string };

export type OpenBenchOptions = {
  /** `--appworld-url` (several allowed); defaults to config.appworld.urls. */
  appworldUrls?: string[];
  /** Task ids given with --tasks, needed by AppWorld when no APPWORLD_ROOT is set. */
  taskIds?: string[];
  /** A file with one task id per line (AppWorld). */
  taskFile?: string;
  /** `--qa-data`: a HotpotQA-format file for `qa`; defaults to config.qa.data. */
  qaData?: string;
};

/** What the CLI knows about a benchmark before opening it. */
export type BenchDefinition = {
  name: string;
  /** The benchmark's own split names, for --help and error messages. */
  splits: readonly string[];
  defaultSplits: DefaultSplits;
  /**
   * Its tasks form scenarios (task ids `<scenario>_<n>`), so results also report scenario goal
   * completion (src/metrics/scenario.ts).
   */
  scenarios: boolean;
  /** Opens it; heavy modules load only here, so `acon --help` stays fast. */
  open(config: Config, opts: OpenBenchOptions): Promise<Benchmark>;
};

export const BENCHES: readonly BenchDefinition[] = [
  {
    name: 'apptown',
    splits: ['train', 'dev', 'test'],
    defaultSplits: { train: 'train', selection: 'dev', evaluation: 'test' },
    scenarios: false,
    async open(config) {
      const { createApptown } = await import('./apptown/index.js');
      return createApptown(config.apptown.tasks_dir ? { tasksDir: config.apptown.tasks_dir } : {});
    },
  },
  {
    name: 'appworld',
    // AppWorld's own dataset files (data/datasets/<split>.txt); test_challenge only on request.
    splits: ['train', 'dev', 'test_normal', 'test_challenge'],
    defaultSplits: { train: 'train', selection: 'dev', evaluation: 'test_normal' },
    scenarios: true,
    async open(config, opts) {
      const { createAppWorld } = await import('./appworld/index.js');
      return createAppWorld({
        urls: opts.appworldUrls ?? config.appworld.urls,
        experimentPrefix: config.appworld.experiment_prefix,
        taskIds: opts.taskIds,
        taskFile: opts.taskFile,
        appworldRoot: config.appworld.root ?? undefined,
        client: { initializeOptions: config.appworld.initialize },
      });
    },
  },
  {
    name: 'qa',
    splits: ['train', 'dev', 'test'],
    defaultSplits: { train: 'train', selection: 'dev', evaluation: 'test' },
    scenarios: false,
    async open(config, opts) {
      const { createQa } = await import('./qa/index.js');
      return createQa({
        data: opts.qaData ?? config.qa.data ?? undefined,
        perTask: config.qa.objectives_per_task,
      });
    },
  },
  {
    name: 'mcp',
    splits: ['train', 'dev', 'test'],
    defaultSplits: { train: 'train', selection: 'dev', evaluation: 'test' },
    scenarios: false,
    async open(config) {
      const { createMcp } = await import('./mcp/index.js');
      return createMcp(config.mcp.tasks_dir ? { tasksDir: config.mcp.tasks_dir } : {});
    },
  },
];

export const BENCH_NAMES = BENCHES.map((b) => b.name);

/** The definition of a benchmark by name; an unknown name is a usage error listing the known ones. */
export function benchDefinition(name: string): BenchDefinition {
  const def = BENCHES.find((b) => b.name === name);
  if (!def) {
    throw new UsageError(
      `unknown benchmark "${name}"; use one of: ${BENCH_NAMES.join(', ')} (apptown runs offline)`,
    );
  }
  return def;
}

/** Whether results of this benchmark report scenario goal completion (false for unknown names). */
export function hasScenarios(name: string): boolean {
  return BENCHES.find((b) => b.name === name)?.scenarios ?? false;
}

/** Opens a benchmark by name. */
export async function openBench(
  name: string,
  config: Config,
  opts: OpenBenchOptions = {},
): Promise<Benchmark> {
  return benchDefinition(name).open(config, opts);
}

/**
 * The optimize splits: a flag wins, then the config's `optimize.*_split`, then the benchmark's
 * own default (so `acon optimize --bench appworld` evaluates on `test_normal`, not `test`).
 */
export function resolveSplits(
  name: string,
  config: Config['optimize'],
  flags: { train?: string; selection?: string; evaluation?: string },
): DefaultSplits {
  const d = benchDefinition(name).defaultSplits;
  return {
    train: flags.train ?? config.train_split ?? d.train,
    selection: flags.selection ?? config.select_split ?? d.selection,
    evaluation: flags.evaluation ?? config.eval_split ?? d.evaluation,
  };
}

import type { Config } from '../config/index.js';
import { InvalidInputError } from '../errors.js';
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
  /**
   * Where optimize draws its selection tasks when neither a flag nor the config says
   * (`--select-from`): `grouped` where the tasks carry the templates the test split holds out,
   * so selection faces the shift the test does (issue 56); `split` where they do not (a
   * single-pattern benchmark would have nothing to hold out).
   */
  selectFrom: 'split' | 'grouped';
  /** Opens it; heavy modules load only here, so `acon --help` stays fast. */
  open(config: Config, opts: OpenBenchOptions): Promise<Benchmark>;
};

export const BENCHES: readonly BenchDefinition[] = [
  {
    name: 'apptown',
    splits: ['train', 'dev', 'test'],
    defaultSplits: { train: 'train', selection: 'dev', evaluation: 'test' },
    scenarios: false,
    selectFrom: 'grouped',
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
    selectFrom: 'split',
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
    // qa tasks carry no template of their own (each bundles several question templates).
    selectFrom: 'split',
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
    // The shipped tasks carry templates and test holds four out, as apptown's does.
    selectFrom: 'grouped',
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
    throw InvalidInputError.unknown('benchmark', name, BENCH_NAMES, 'apptown runs offline');
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
 * own default (so `acon optimize --bench appworld` evaluates on `test_normal`, not `test`); the
 * same for where selection tasks are drawn from (`selectFrom`).
 */
export function resolveSplits(
  name: string,
  config: Config['optimize'],
  flags: {
    train?: string;
    selection?: string;
    evaluation?: string;
    selectFrom?: 'split' | 'grouped';
  },
): DefaultSplits & { selectFrom: 'split' | 'grouped' } {
  const def = benchDefinition(name);
  const d = def.defaultSplits;
  const named = flags.selection ?? config.select_split;
  const from = flags.selectFrom ?? config.select_from;
  return {
    train: flags.train ?? config.train_split ?? d.train,
    selection: named ?? d.selection,
    evaluation: flags.evaluation ?? config.eval_split ?? d.evaluation,
    // A selection split the user named is taken as it is: they chose those tasks.
    selectFrom: from ?? (named ? 'split' : def.selectFrom),
  };
}

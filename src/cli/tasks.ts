import type { Command } from 'commander';
import pc from 'picocolors';
import type { Benchmark } from '../bench/index.js';
import { benchDefinition } from '../bench/catalog.js';
import { UsageError } from './usage-error.js';
import type { BenchOptions } from './tasks-options.js';

/** Where the commands print; tests pass buffers. */
export type TasksIo = { out: (text: string) => void; err: (text: string) => void };

const STDIO: TasksIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/**
 * Task listing needs no server: apptown and qa read their task files, AppWorld the split lists
 * of the AppWorld install (`appworld.root` in the config, else $APPWORLD_ROOT); when an AppWorld
 * server answers, it also gives each task's instruction.
 */
async function openBench(opts: BenchOptions): Promise<Benchmark> {
  const def = benchDefinition(opts.bench);
  const { loadConfig } = await import('../config/index.js');
  const { config } = loadConfig({ file: opts.config });
  // Loaded on use: the data generators are heavy and `acon --help` must start fast.
  if (def.name === 'apptown') {
    const { loadApptown } = await import('../bench/index.js');
    const { createApptown } = await loadApptown();
    // The same tasks a run would use: --tasks-dir, else apptown.tasks_dir (ACON_APPTOWN__TASKS_DIR).
    const tasksDir = opts.tasksDir ?? config.apptown.tasks_dir ?? undefined;
    return createApptown(tasksDir ? { tasksDir } : {});
  }
  if (def.name === 'qa') {
    const { loadQa } = await import('../bench/index.js');
    const { createQa } = await loadQa();
    return createQa({ tasksDir: opts.tasksDir, data: opts.qaData });
  }
  if (opts.tasksDir) throw new UsageError('--tasks-dir is for --bench apptown or qa only');
  return def.open(config, {});
}

function checkSplit(bench: string, split: string | undefined): void {
  const { splits } = benchDefinition(bench);
  if (split !== undefined && !splits.includes(split)) {
    throw new UsageError(
      `--split: ${bench} has no split "${split}"; use one of ${splits.join(', ')}`,
    );
  }
}

/** Bad task files do not stop the listing; say which ones were skipped and why. */
async function warnProblems(bench: Benchmark, io: TasksIo): Promise<void> {
  for (const problem of (await bench.loadProblems?.()) ?? []) {
    io.err(`${pc.yellow('warning:')} skipped ${problem.message}\n`);
  }
}

const EXAMPLES = `
Examples:
  $ acon tasks list --bench apptown
  $ acon tasks list --bench apptown --split dev --json
  $ acon tasks show train-010-files-wallet-music
  $ acon tasks list --bench qa --split test
  $ acon tasks show qa-dev-08q-1 --bench qa
  $ acon tasks list --bench qa --qa-data hotpot_dev.json
  $ APPWORLD_ROOT=~/appworld acon tasks list --bench appworld --split train --json`;

export function registerTasks(program: Command, io: TasksIo = STDIO): void {
  const tasks = program
    .command('tasks')
    .description('list and inspect benchmark tasks')
    .addHelpText('after', EXAMPLES);

  tasks
    .command('list')
    .description(
      "list the tasks of a benchmark: id, split, difficulty, apps, reference length (no server needed; --json: also the template and instruction, AppWorld's from a server when one answers)",
    )
    .option('--bench <name>', 'benchmark: apptown, appworld, qa or mcp', 'apptown')
    .option(
      '--split <name>',
      'only this split: apptown/qa train, dev, test; appworld train, dev, test_normal, test_challenge',
    )
    .option('--tasks-dir <dir>', 'read task files from this folder (apptown, qa)')
    .option('--qa-data <file>', 'qa: HotpotQA-format questions instead of the shipped tasks')
    .option('--json', 'print JSON instead of a table')
    .option('--wide', 'every column at full length, however wide the terminal')
    .addHelpText('after', EXAMPLES)
    .action(async (_raw: unknown, cmd: Command) => {
      const { ListOptionsSchema, parseOptions } = await import('./tasks-options.js');
      const opts = parseOptions(ListOptionsSchema, cmd.optsWithGlobals());
      checkSplit(opts.bench, opts.split);
      const bench = await openBench(opts);
      const listed = await bench.listTasks(opts.split);
      const list = (await bench.describeTasks?.(listed)) ?? listed;
      await warnProblems(bench, io);
      const splits = benchDefinition(opts.bench).splits;
      const { renderTaskTable, terminalWidth } = await import('../report/index.js');
      io.out(
        opts.json
          ? `${JSON.stringify(list, null, 2)}\n`
          : renderTaskTable(list, splits, { width: terminalWidth(), wide: opts.wide ?? false }),
      );
    });

  tasks
    .command('show <id>')
    .description('show one task: instruction, apps, reference length, difficulty, template')
    .option('--bench <name>', 'benchmark: apptown, appworld, qa or mcp', 'apptown')
    .option('--tasks-dir <dir>', 'read task files from this folder (apptown, qa)')
    .option('--qa-data <file>', 'qa: HotpotQA-format questions instead of the shipped tasks')
    .option('--json', 'print JSON')
    .addHelpText('after', EXAMPLES)
    .action(async (id: string, _raw: unknown, cmd: Command) => {
      const { BenchOptionsSchema, parseOptions } = await import('./tasks-options.js');
      const opts = parseOptions(BenchOptionsSchema, cmd.optsWithGlobals());
      const bench = await openBench(opts);
      const found = await bench.getTask(id);
      const task = (await bench.describeTasks?.([found]))?.[0] ?? found;
      const { renderTask } = await import('../report/index.js');
      io.out(opts.json ? `${JSON.stringify(task, null, 2)}\n` : renderTask(task));
    });
}

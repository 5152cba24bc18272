import type { Command } from 'commander';
import pc from 'picocolors';
import type { Benchmark, TaskInfo } from '../bench/types.js';
import { benchDefinition } from '../bench/registry.js';
import { UsageError } from '../errors.js';
import type { BenchOptions } from './tasks-options.js';
import {
  fitTable,
  terminalWidth,
  wrapNotes,
  type Column,
  type FitOptions,
} from '../report/fit-table.js';

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
  const { loadConfig } = await import('../config/load.js');
  const { config } = loadConfig({ file: opts.config });
  // Loaded on use: the data generators are heavy and `acon --help` must start fast.
  if (def.name === 'apptown') {
    const { createApptown } = await import('../bench/apptown/index.js');
    // The same tasks a run would use: --tasks-dir, else apptown.tasks_dir (ACON_APPTOWN__TASKS_DIR).
    const tasksDir = opts.tasksDir ?? config.apptown.tasks_dir ?? undefined;
    return createApptown(tasksDir ? { tasksDir } : {});
  }
  if (def.name === 'qa') {
    const { createQa } = await import('../bench/qa/index.js');
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

const TASK_COLUMNS: Column<TaskInfo>[] = [
  { key: 'id', label: 'id', value: (t) => t.id },
  { key: 'split', label: 'split', value: (t) => t.split },
  { key: 'difficulty', label: 'difficulty', value: (t) => String(t.difficulty), align: 'right' },
  { key: 'apps', label: 'apps', value: (t) => t.apps.join(', '), flex: true },
  { key: 'calls', label: 'calls', value: (t) => String(t.referenceLength), align: 'right' },
];

/** The task list, fitting `opts.width` (the app list is shortened first). */
export function renderTaskTable(
  tasks: TaskInfo[],
  splitNames: readonly string[],
  opts: FitOptions = {},
): string {
  const { text, notes } = fitTable(tasks, TASK_COLUMNS, opts);
  const splits = splitNames
    .map((s) => `${s} ${tasks.filter((t) => t.split === s).length}`)
    .join(', ');
  const foot = [...wrapNotes(notes, opts.width ?? 100), `${tasks.length} tasks (${splits})`];
  return `${text}${foot.join('\n')}\n`;
}

export function renderTask(t: TaskInfo): string {
  return [
    `${pc.bold(t.id)}  (${t.split}, difficulty ${t.difficulty})`,
    `apps: ${t.apps.join(', ')}`,
    `reference solution: ${t.referenceLength} calls`,
    ...(t.template !== undefined ? [`template: ${t.template}`] : []),
    '',
    t.instruction,
    '',
  ].join('\n');
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
      io.out(opts.json ? `${JSON.stringify(task, null, 2)}\n` : renderTask(task));
    });
}

import type { Command } from 'commander';
import { RunBusyError } from '../errors.js';
import { UsageError } from './usage-error.js';
import { checked, positiveInt } from './numbers.js';
import { DB_OPTION, WIDE_OPTION } from './shared-options.js';

type StoreOpts = { config?: string; db?: string };
type ListOpts = StoreOpts & { json?: boolean; kind?: string; wide?: boolean };
type ShowOpts = StoreOpts & {
  json?: boolean;
  wide?: boolean;
  failed?: boolean;
  condition?: string;
  task?: string;
};
type PruneOpts = StoreOpts & { keep: string; dryRun?: boolean };
type RmOpts = StoreOpts & { force?: boolean };

/** Opens the run database named by --db or the config (heavy modules load only here). */
async function openStore(opts: StoreOpts, mode: 'read' | 'write') {
  const { loadConfig } = await import('../config/index.js');
  const { openRunStore } = await import('../store/index.js');
  const { config } = loadConfig({ file: opts.config });
  const path = opts.db ?? config.run.db;
  // Deleting from a database that does not exist changes nothing: none is created for it.
  const { existsSync } = await import('node:fs');
  return { store: openRunStore(path, { mode: existsSync(path) ? mode : 'read' }), path };
}

async function width() {
  const { terminalWidth } = await import('../report/index.js');
  return terminalWidth();
}

/**
 * `acon runs` (list), `runs show RUN`, `runs rm RUN…`, `runs prune --keep N`, `runs upgrade`.
 * Returns the `runs` command so other files can add subcommands to it.
 */
export function registerRuns(program: Command): Command {
  const runs = program
    .command('runs')
    .description('stored runs: list them, drill into one, delete old ones, upgrade an older file')
    .addHelpText(
      'after',
      `
Examples:
  $ acon runs                                  newest first, accuracy per condition and models
  $ acon runs show run-20261122-185444-e9wy --failed
  $ acon runs rm run-20261122-185444-e9wy
  $ acon runs prune --keep 10
  $ acon runs upgrade                          after installing a newer acon`,
    );
  registerRunsList(runs);
  registerRunsShow(runs);
  registerRunsRm(runs);
  registerRunsPrune(runs);
  registerRunsUpgrade(runs);
  return runs;
}

function registerRunsList(runs: Command): void {
  runs
    .command('list', { isDefault: true })
    .description('list stored runs, newest first: provider, models, status, accuracy per condition')
    .option('--kind <kind>', 'only runs of this kind: run, compare, optimize')
    .option(...DB_OPTION)
    .option('--json', 'print JSON (schema: acon schema runs)')
    .option(...WIDE_OPTION)
    .addHelpText(
      'after',
      `
Examples:
  $ acon runs
  $ acon runs --kind optimize --json`,
    )
    .action(async (_o: ListOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<ListOpts>();
      const { runListItems, runsListTable } = await import('../report/index.js');
      const { infraFailures } = await import('../store/index.js');
      const { store } = await openStore(opts, 'read');
      try {
        const items = runListItems(
          store.listRuns(opts.kind),
          store.conditionCounts(),
          (runId) => infraFailures(store, runId).length,
        );
        if (opts.json) process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
        else process.stdout.write(runsListTable(items, { width: await width(), wide: opts.wide }));
      } finally {
        store.close();
      }
    });
}

function registerRunsShow(runs: Command): void {
  runs
    .command('show')
    .description('one run, rollout by rollout: success, steps, peak tokens, cost, why it failed')
    .argument('<run>', 'run id (see `acon runs`)')
    .option('--failed', 'only failed rollouts')
    .option('--condition <label>', 'only this condition, e.g. masking or acon[obs-0002,hist-0000]')
    .option('--task <id>', 'only this task')
    .option(...DB_OPTION)
    .option('--json', 'print JSON with a `rollouts` array (schema: acon schema runs-show)')
    .option(...WIDE_OPTION)
    .addHelpText(
      'after',
      `
Examples:
  $ acon runs show run-20261122-185444-e9wy
  $ acon runs show run-20261122-185444-e9wy --failed --condition naive
  $ acon runs show run-20261122-185444-e9wy --json | jq '.rollouts | length'
  $ acon rollout show 3f2a9c1e                  then read one trajectory`,
    )
    .action(async (runId: string, _o: ShowOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<ShowOpts>();
      const { runShow, runShowTable } = await import('../report/index.js');
      const { costByRole } = await import('../report/index.js');
      const { infraFailures } = await import('../store/index.js');
      const { store } = await openStore(opts, 'read');
      try {
        const run = store.getRun(runId);
        const rows = store.rollouts(runId);
        const show = runShow(
          run,
          rows,
          {
            failed: opts.failed === true,
            condition: opts.condition ?? null,
            task: opts.task ?? null,
          },
          infraFailures(store, runId),
          costByRole(rows, store.usageOutsideRollouts(runId)),
        );
        if (opts.json) process.stdout.write(`${JSON.stringify(show, null, 2)}\n`);
        else process.stdout.write(runShowTable(show, { width: await width(), wide: opts.wide }));
      } finally {
        store.close();
      }
    });
}

function registerRunsRm(runs: Command): void {
  runs
    .command('rm')
    .description('delete runs with their rollouts, steps, compression events and LLM calls')
    .argument('<run...>', 'run ids')
    .option(
      '--force',
      'accepted for old scripts and not needed: a run whose process is gone (killed, crashed) is deleted without it, and a run whose process is alive is never deleted, with or without it',
    )
    .option(...DB_OPTION)
    .addHelpText(
      'after',
      `
The LLM call cache and guideline versions are kept (other runs and guideline files use them).
A run still being worked on is refused, naming its process: stop that process first (Ctrl-C),
then delete the run. Deleting it under a live writer would make the writer fail.

Examples:
  $ acon runs rm run-20261122-185444-e9wy
  $ acon runs rm run-20261122-185444-e9wy run-20261122-190102-k2zq`,
    )
    .action(async (ids: string[], _o: RmOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<RmOpts>();
      const { store, path } = await openStore(opts, 'write');
      try {
        // Check every id first: a typo or a live run deletes nothing.
        const rows = ids.map((id) => store.getRun(id));
        // getRun reads a run whose process is gone as interrupted: `running` is a live owner.
        const busy = rows.find((r) => r.status === 'running');
        if (busy) {
          const { pid, host } = busy.owner;
          throw new RunBusyError(
            `run ${busy.id} is being run by pid ${pid} on ${host}; stop that process first (Ctrl-C in its terminal, or kill ${pid}), then delete the run${opts.force ? ' (--force never deletes a live run)' : ''}`,
          );
        }
        for (const r of rows) {
          const n = store.deleteRun(r.id);
          process.stdout.write(
            `deleted run ${r.id} from ${path} (${n.rollouts} rollouts, ${n.calls} LLM calls)\n`,
          );
        }
      } finally {
        store.close();
      }
    });
}

function registerRunsPrune(runs: Command): void {
  runs
    .command('prune')
    .description('delete all but the newest N runs (runs still marked running are kept)')
    .requiredOption(
      '--keep <n>',
      'how many of the newest runs to keep',
      checked.positiveInt('--keep'),
    )
    .option('--dry-run', 'only list what would be deleted')
    .option(...DB_OPTION)
    .addHelpText(
      'after',
      `
Examples:
  $ acon runs prune --keep 10 --dry-run
  $ acon runs prune --keep 10`,
    )
    .action(async (_o: PruneOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<PruneOpts>();
      const keep = positiveInt(opts.keep, '--keep');
      if (keep === undefined) throw new UsageError('--keep needs a number of runs, e.g. --keep 10');
      const { store, path } = await openStore(opts, 'write');
      try {
        const old = store
          .listRuns()
          .slice(keep)
          .filter((r) => r.status !== 'running');
        if (old.length === 0) process.stdout.write(`nothing to prune in ${path}\n`);
        for (const r of old) {
          if (opts.dryRun) {
            process.stdout.write(`would delete run ${r.id} (${r.kind}, ${r.created_at})\n`);
            continue;
          }
          const n = store.deleteRun(r.id);
          process.stdout.write(
            `deleted run ${r.id} (${n.rollouts} rollouts, ${n.calls} LLM calls)\n`,
          );
        }
      } finally {
        store.close();
      }
    });
}

function registerRunsUpgrade(runs: Command): void {
  runs
    .command('upgrade')
    .description(
      "convert a database written by an older acon (schema 12) to this acon's store, in place (every command refuses an older file)",
    )
    .option(...DB_OPTION)
    .addHelpText(
      'after',
      `
Examples:
  $ acon runs upgrade
  $ acon runs upgrade --db old-runs/acon.db`,
    )
    .action(async (_o: StoreOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<StoreOpts>();
      const { loadConfig } = await import('../config/index.js');
      const { upgradeDatabase } = await import('../store-upgrade/index.js');
      const path = opts.db ?? loadConfig({ file: opts.config }).config.run.db;
      const { from, to, legacy, bytes } = upgradeDatabase(path);
      const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
      process.stdout.write(
        legacy
          ? `upgraded ${path} from schema version ${from} of the store before v2 to ${to} (${mb(bytes!.before)} → ${mb(bytes!.after)})\n`
          : `${path} is at schema version ${to} already (this acon's)\n`,
      );
    });
}

import type { Command } from 'commander';
import { DB_OPTION } from './shared-options.js';

type ShowOpts = { config?: string; db?: string; json?: boolean; full?: boolean; wide?: boolean };

/** `acon rollout show ID`: one trajectory step by step. */
export function registerRollout(program: Command): void {
  const group = program
    .command('rollout')
    .description('one rollout: its trajectory, compressions and evaluation');
  group
    .command('show')
    .description(
      'the trajectory step by step: action, observation, each compression (input and output side by side), token counts',
    )
    .argument('<id>', 'rollout id or a unique prefix of it (as `acon runs show RUN` prints them)')
    .option('--full', 'print long texts whole (default: fold them to a few lines)')
    .option('--wide', 'use up to 200 columns (default: fit the terminal, 100 columns if unknown)')
    .option(...DB_OPTION)
    .option('--json', 'print JSON, texts unfolded (schema: acon schema rollout-show)')
    .addHelpText(
      'after',
      `
Examples:
  $ acon runs show run-20261122-185444-e9wy --failed     find a failed rollout
  $ acon rollout show 3f2a9c1e
  $ acon rollout show 3f2a9c1e --full | less`,
    )
    .action(async (id: string, _o: ShowOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<ShowOpts>();
      const { loadConfig } = await import('../config/index.js');
      const { openRunStore } = await import('../store/index.js');
      const { rolloutShow, renderRollout } = await import('../report/index.js');
      const { terminalWidth } = await import('../report/index.js');
      const { config } = loadConfig({ file: opts.config });
      const store = openRunStore(opts.db ?? config.run.db, { mode: 'read' });
      try {
        const row = store.rollout(id);
        const view = rolloutShow(
          row,
          store.trajectoryHead(row.id),
          store.stepRecords(row.id),
          store.events(row.id),
          store.getRun(row.run_id).simulated,
        );
        if (opts.json) process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
        else
          process.stdout.write(
            renderRollout(view, { width: terminalWidth(), wide: opts.wide, full: opts.full }),
          );
      } finally {
        store.close();
      }
    });
}

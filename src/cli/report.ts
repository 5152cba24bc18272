import type { Command } from 'commander';
import { DEFAULT_MAX_TRAJECTORIES } from '../report/catalog.js';
import { checked, positiveInt } from './numbers.js';
import { DB_OPTION } from './shared-options.js';

type ReportOpts = { config?: string; db?: string; html: string; maxTrajectories?: string };

/** `acon report RUN --html FILE`: one self-contained HTML page with the run's plots. */
export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      'write a self-contained HTML report of a run: Pareto plot with CIs, wins/losses vs raw, distributions, cost by role, guideline lineage, trajectory viewer',
    )
    .argument('<run>', 'run id (see `acon runs`)')
    .requiredOption('--html <file>', 'where to write the page (it opens offline, from disk)')
    .option(
      '--max-trajectories <n>',
      `trajectories embedded for the viewer: failures first (an optimize's evaluation split first), every condition in turn (default: ${DEFAULT_MAX_TRAJECTORIES})`,
      checked.positiveInt('--max-trajectories'),
    )
    .option(...DB_OPTION)
    .addHelpText(
      'after',
      `
Examples:
  $ acon report run-20261122-185444-e9wy --html report.html
  $ acon report run-20261122-190218-bi5p --html opt.html --max-trajectories 50`,
    )
    .action(async (runId: string, _o: ReportOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<ReportOpts>();
      const max = positiveInt(opts.maxTrajectories, '--max-trajectories');
      const { loadConfig } = await import('../config/index.js');
      const { openRunStore } = await import('../store/index.js');
      const { reportData } = await import('../report/index.js');
      const { renderReportHtml } = await import('../report/index.js');
      const { writeFileAtomic } = await import('../write-file-atomic.js');
      const { config } = loadConfig({ file: opts.config });
      const store = openRunStore(opts.db ?? config.run.db, { mode: 'read' });
      try {
        const data = await reportData(store, runId, { maxTrajectories: max });
        const html = renderReportHtml(data);
        writeFileAtomic(opts.html, html);
        const kb = Math.round(Buffer.byteLength(html) / 1024);
        process.stdout.write(
          `wrote ${opts.html} (${kb.toLocaleString('en-US')} KB) for run ${runId}${data.run.simulated ? ' (SIMULATED)' : ''}\n`,
        );
      } finally {
        store.close();
      }
    });
}

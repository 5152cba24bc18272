import type { Command } from 'commander';
import { UsageError } from './usage-error.js';
import { DB_OPTION } from './shared-options.js';

type DiffOpts = { config?: string; db?: string; json?: boolean; wide?: boolean };

/**
 * `acon runs diff RUN_A RUN_B`: teacher vs student side by side (accuracy retention, peak
 * tokens), on the tasks both runs finished. Added to the `runs` command of runs.ts.
 */
export function registerRunsDiff(runs: Command): void {
  runs
    .command('diff')
    .description(
      'compare two runs condition by condition: accuracy retention (B ÷ A) and peak tokens, e.g. teacher (A) vs student (B)',
    )
    .argument('<runA>', 'the reference run (e.g. the teacher compressor)')
    .argument('<runB>', 'the run compared with it (e.g. the student compressor)')
    .option(...DB_OPTION)
    .option('--json', 'print the rows as JSON')
    .option('--wide', 'every column at full length')
    .addHelpText(
      'after',
      `
Conditions are paired by label (a run with a single condition is paired with the other's single
condition); only tasks both runs finished count.

Examples:
  $ acon runs diff run-20261122-031500-ab12 run-20261123-101500-cd34
  $ acon runs diff TEACHER_RUN STUDENT_RUN --json`,
    )
    .action(async (runA: string, runB: string, _o: DiffOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<DiffOpts>();
      const { loadConfig } = await import('../config/index.js');
      const { openRunStore } = await import('../store/index.js');
      const { diffRuns, runDiffColumns } = await import('../report/index.js');
      const { closingLine, modelLabel, resultTable } = await import('../report/index.js');
      const { terminalWidth, wrapLine } = await import('../report/index.js');
      const { config } = loadConfig({ file: opts.config });
      const path = opts.db ?? config.run.db;
      const store = openRunStore(path, { mode: 'read' });
      try {
        const [a, b] = [store.getRun(runA), store.getRun(runB)];
        const rows = diffRuns(store.rollouts(a.id), store.rollouts(b.id), config.seed);
        if (rows.length === 0) {
          throw new UsageError(
            `runs ${a.id} and ${b.id} share no condition; see their conditions with \`acon runs show RUN\``,
          );
        }
        if (opts.json) {
          process.stdout.write(`${JSON.stringify({ a: a.id, b: b.id, rows }, null, 2)}\n`);
          return;
        }
        const who = (tag: string, r: typeof a) => [
          `${tag}: ${r.simulated ? 'SIMULATED — ' : ''}${r.id} · ${r.bench}`,
          `   agent ${modelLabel(r.models.agent ?? '?')} · compressor ${modelLabel(r.models.obs_compressor ?? '?')}`,
        ];
        const fit = { width: terminalWidth(), wide: opts.wide };
        const limit = opts.wide ? Number.POSITIVE_INFINITY : fit.width;
        const head = [...who('A', a), ...who('B', b)].flatMap((l) => wrapLine(l, limit));
        process.stdout.write(`${head.join('\n')}\n`);
        process.stdout.write(resultTable(rows, runDiffColumns(), null, fit));
        // A diff stores nothing: name where both runs were read from, not a stored run.
        process.stdout.write(closingLine(`read from ${path}`, ': ', 'run A vs B', fit));
      } finally {
        store.close();
      }
    });
}

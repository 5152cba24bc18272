import type { Command } from 'commander';
import { DB_OPTION } from './shared-options.js';
import { UsageError } from './usage-error.js';

type TracesOpts = { config?: string; db?: string; out?: string };

/**
 * `acon runs traces RUN[:CONDITION]`: a stored run's conversations (a `proxy --record` run's
 * traffic, or any run's rollouts under one condition) as a traces JSONL file, the format
 * `acon replay --traces` and `acon optimize --traces` read (issue #57). The file is what a user
 * keeps, shares or edits before learning from it; `--traces RUN` reads the same conversations
 * from the database directly. Added to the `runs` command of runs.ts.
 */
export function registerRunsTraces(runs: Command): void {
  runs
    .command('traces')
    .description(
      "write a run's conversations as a traces JSONL file (one conversation a line), for acon replay / optimize --traces",
    )
    .argument(
      '<source>',
      "run id, or RUN:CONDITION (default condition: raw, or the run's only one; a proxy run has one)",
    )
    .option('--out <file>', 'write to this file (default: standard output)')
    .option(...DB_OPTION)
    .addHelpText(
      'after',
      `
Each line is {"id", "messages", "tools"?, "outcome"?, "metadata"?: {"task_id"}}: the OpenAI chat
format, outcome success|failure where the run knew it (a proxy run does not).

Examples:
  $ acon proxy --record --upstream http://127.0.0.1:8000/v1     then run your agent through it
  $ acon runs traces proxy-20261202-101500-ab12 --out traffic.jsonl
  $ acon runs traces run-20261202-101500-cd34:raw --out raw-train.jsonl
  $ acon replay --traces traffic.jsonl
  $ acon optimize --traces traffic.jsonl`,
    )
    .action(async (source: string, _o: TracesOpts, cmd: Command) => {
      const opts = cmd.optsWithGlobals<TracesOpts>();
      const { loadConfig } = await import('../config/index.js');
      const { openRunStore } = await import('../store/index.js');
      const { parseTraceSource, runTraces, traceLine } = await import('../experiment/index.js');
      const { writeFileAtomic } = await import('../write-file-atomic.js');
      const parsed = parseTraceSource(source);
      if (parsed.kind !== 'run') {
        throw new UsageError(
          `"${source}" is not a run id; give one from \`acon runs\` (run-… or proxy-…), optionally as RUN:CONDITION`,
        );
      }
      const { config } = loadConfig({ file: opts.config });
      const store = openRunStore(opts.db ?? config.run.db, { mode: 'read' });
      let text: string;
      try {
        const traces = runTraces(store, parsed.runId, parsed.condition);
        text = traces.map((t) => `${traceLine(t)}\n`).join('');
      } finally {
        store.close();
      }
      if (opts.out === undefined) process.stdout.write(text);
      else writeFileAtomic(opts.out, text);
    });
}

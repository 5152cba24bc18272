import type { Command } from 'commander';
import type { ZodType } from 'zod';
import { UsageError } from './usage-error.js';

/**
 * The `--json` shapes, by the name `acon schema NAME` takes. Each is the zod schema the output
 * is built from, so the printed JSON Schema cannot drift from what the command prints.
 */
async function schemas() {
  const { RunsListSchema } = await import('../report/index.js');
  const { RunShowSchema } = await import('../report/index.js');
  const { RolloutShowSchema } = await import('../report/index.js');
  const { RunConditionsResultSchema } = await import('../experiment/index.js');
  const { ReportDataSchema } = await import('../report/index.js');
  const { OptimizeResultSchema } = await import('../optimize/index.js');
  const { OptimizePlanSchema } = await import('../optimize/index.js');
  const { ReplayResultSchema } = await import('../experiment/index.js');
  const { TraceOptimizeResultSchema } = await import('../optimize/index.js');
  return {
    runs: { schema: RunsListSchema, what: 'acon runs --json' },
    'runs-show': { schema: RunShowSchema, what: 'acon runs show RUN --json' },
    'rollout-show': { schema: RolloutShowSchema, what: 'acon rollout show ID --json' },
    compare: { schema: RunConditionsResultSchema, what: 'acon compare --json and acon run --json' },
    optimize: { schema: OptimizeResultSchema, what: 'acon optimize --json' },
    'optimize-plan': { schema: OptimizePlanSchema, what: 'acon optimize --dry-run --json' },
    'optimize-traces': {
      schema: TraceOptimizeResultSchema,
      what: 'acon optimize --traces SOURCE --json',
    },
    replay: { schema: ReplayResultSchema, what: 'acon replay --json' },
    'report-data': {
      schema: ReportDataSchema,
      what: 'the data embedded in acon report pages (<script id="acon-data">)',
    },
  };
}

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of a command’s --json output')
    .argument(
      '[name]',
      'runs, runs-show, rollout-show, compare, optimize, optimize-plan, optimize-traces, replay or report-data (omit to list them)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ acon schema                      list the names
  $ acon schema runs-show > runs-show.schema.json
  $ acon schema compare | jq '.properties.conditions'`,
    )
    .action(async (name: string | undefined) => {
      const { z } = await import('zod');
      const all = await schemas();
      if (name === undefined) {
        for (const [n, s] of Object.entries(all))
          process.stdout.write(`${n.padEnd(17)}${s.what}\n`);
        return;
      }
      const entry = (all as Record<string, { schema: ZodType; what: string }>)[name];
      if (!entry) {
        throw new UsageError(`no schema "${name}"; use one of: ${Object.keys(all).join(', ')}`);
      }
      const json = z.toJSONSchema(entry.schema, { io: 'output', unrepresentable: 'any' });
      process.stdout.write(
        `${JSON.stringify({ ...json, title: name, description: entry.what }, null, 2)}\n`,
      );
    });
}

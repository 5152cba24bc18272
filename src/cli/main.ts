import { Command, CommanderError } from 'commander';
import { isMissingSqlite, MISSING_SQLITE_MESSAGE } from './missing-sqlite.js';
import pc from 'picocolors';
import { AconError } from '../errors.js';
import { redactUrlCredentials } from '../url-credentials.js';
import { cliMessage } from './library-errors.js';
import { registerExport, registerLint } from './export.js';
import { registerGuidelines } from './guidelines.js';
import { registerInit } from './init.js';
import { registerOptimize } from './optimize.js';
import { registerProxy } from './proxy.js';
import { registerCompare, registerRun } from './run.js';
import { registerReplay } from './replay.js';
import { registerReport } from './report.js';
import { registerRollout } from './rollout.js';
import { registerRuns } from './runs.js';
import { registerRunsDiff } from './runs-diff.js';
import { registerRunsTraces } from './runs-traces.js';
import { registerSchema } from './schema.js';
import { registerTasks } from './tasks.js';

const EXAMPLES = `
Examples:
  $ acon init                                   write a commented acon.config.yaml
  $ acon optimize --bench apptown               learn guidelines offline (simulated LLM)
  $ acon compare --bench apptown --split dev    every context strategy side by side
  $ acon guidelines diff obs-0000 obs-0002      what the optimizer changed
  $ acon export --role hist --format openai --out hist.jsonl
`;

export function buildProgram(): Command {
  const program = new Command('acon')
    .description('Learn context-compression guidelines for LLM agents (ACON).')
    .version('0.1.0')
    .option('-c, --config <file>', 'config file (default: ./acon.config.yaml)')
    .option('--verbose', 'show stack traces and debug output (also ACON_VERBOSE=1)')
    .addHelpText('after', EXAMPLES)
    .showSuggestionAfterError()
    .exitOverride();
  registerInit(program);
  registerTasks(program);
  registerRun(program);
  registerCompare(program);
  const runs = registerRuns(program);
  registerRunsDiff(runs);
  registerRunsTraces(runs);
  registerRollout(program);
  registerReport(program);
  registerSchema(program);
  registerOptimize(program);
  registerReplay(program);
  registerGuidelines(program);
  registerExport(program);
  registerLint(program);
  registerProxy(program);
  return program;
}

/** Runs the CLI and returns the exit code; prints errors without a stack unless --verbose. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    return await reportError(err, argv.includes('--verbose') || verboseFromEnv());
  }
}

/** ACON_VERBOSE=1 (or true/yes) turns on --verbose. */
function verboseFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test(env.ACON_VERBOSE ?? '');
}

async function reportError(thrown: unknown, verbose: boolean): Promise<number> {
  if (thrown instanceof CommanderError) {
    // commander already printed usage errors; help and version exit 0. Wrong usage (an unknown
    // option or command, a missing argument) is bad input: 2, like every other input error.
    return thrown.exitCode === 0 ? 0 : 2;
  }
  if (isMissingSqlite(thrown)) {
    process.stderr.write(`${pc.red('error:')} ${MISSING_SQLITE_MESSAGE}\n`);
    return 2;
  }
  // Loaded only on an error: the store brings better-sqlite3 and every record schema, which
  // `acon --help` and `acon --version` should not pay for (issue #28).
  const { explainDatabaseError } = await import('../store/index.js');
  const err = explainDatabaseError(thrown);
  if (err instanceof AconError) {
    process.stderr.write(`${pc.red('error:')} ${redactUrlCredentials(cliMessage(err))}\n`);
    if (verbose && err.stack) process.stderr.write(`${redactUrlCredentials(err.stack)}\n`);
    return err.exitCode;
  }
  const e = err instanceof Error ? err : new Error(String(err));
  // Every message printed here may name an endpoint: its URL's credentials stay out (issue #60).
  process.stderr.write(`${pc.red('error:')} ${redactUrlCredentials(e.message)}\n`);
  if (verbose) process.stderr.write(`${redactUrlCredentials(e.stack ?? '')}\n`);
  else process.stderr.write('(run again with --verbose for details)\n');
  return 1;
}

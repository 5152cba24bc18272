import { InvalidInputError, type AconError } from '../errors.js';
import { UsageError } from './usage-error.js';

/**
 * The flag of each library option whose flag is not its name in kebab case (`compressorKeyEnv` is
 * `--compressor-key-env`): config keys and the options a flag feeds under another name.
 */
const FLAG_OF: Readonly<Record<string, string>> = {
  taskIds: '--tasks',
  conditions: '--condition',
  splits: '--split',
  'budget.usd': '--budget-usd',
  'run.allow_task_changes': '--allow-task-changes',
  'run.db': '--db',
  'qa.data': '--qa-data',
  // loadConfig's `file`: the config file.
  file: '--config',
};

/** The flag that sets a library option. */
export function flagOf(option: string): string {
  return FLAG_OF[option] ?? `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * A library error's message in the CLI's terms: the options it names (`` `force` ``) become the
 * flags that set them (`--force`). The library words its errors for its own callers; the CLI is
 * one of them.
 */
export function cliMessage(err: AconError): string {
  return cliText(err.message, err.options);
}

/**
 * A library line (an error's message, a warning) in the CLI's terms: each option in `options`,
 * written in it as `` `name` ``, becomes its flag.
 */
export function cliText(line: string, options: readonly string[] = []): string {
  let text = line;
  for (const option of options) text = text.replaceAll(`\`${option}\``, flagOf(option));
  return text;
}

/**
 * Runs `fn`; an InvalidInputError about `what` (a guideline pair, say) that it throws becomes a
 * UsageError that names the flag the value came from: `--guidelines: unknown guideline version
 * "obs@actve"; versions: …`. Other errors pass unchanged.
 */
export async function forFlag<T>(flag: string, what: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InvalidInputError && err.what === what) {
      throw new UsageError(`${flag}: ${cliMessage(err)}`, { cause: err });
    }
    throw err;
  }
}

/**
 * Runs `fn`; every InvalidInputError it throws becomes a UsageError in the CLI's terms, for a
 * command whose library call takes its flags one for one as options (`acon export`).
 */
export async function asUsage<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InvalidInputError) throw new UsageError(cliMessage(err), { cause: err });
    throw err;
  }
}

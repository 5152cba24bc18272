/**
 * Typed errors. Structured data stays on the error; the CLI (src/cli/main.ts) turns it into a
 * one-line message and an exit code. Library code never calls process.exit.
 */
export class AconError extends Error {
  override name = 'AconError';
  /** Process exit code the CLI uses for this error. */
  readonly exitCode: number = 1;
  /**
   * The options of the library the message names, each written in it as `` `name` ``
   * (`` `force` ``, `` `budget.usd` ``): the CLI writes them as its flags (src/cli/library-errors.ts).
   */
  readonly options: readonly string[];

  constructor(message?: string, opts?: AconErrorOptions) {
    super(message, opts);
    this.options = opts?.options ?? [];
  }
}

/** How an error was caused, and the options its message names. */
export type AconErrorOptions = ErrorOptions & { options?: readonly string[] };

/**
 * Where the library tells its caller of something it went on despite (a task changed, invalid
 * files skipped). `options` are the library options the line names, each as `` `name` `` (as in
 * {@link AconError.options}): the CLI writes them as its flags.
 */
export type Warn = (line: string, options?: readonly string[]) => void;

/**
 * A bad input file: names the file, the field and what is wrong or how to fix it. The
 * subclasses differ only in name (what the CLI prints); loaders catch TaskFileError to keep
 * going with the other tasks.
 */
export class InputFileError extends AconError {
  override name = 'InputFileError';
  override readonly exitCode = 2;
  constructor(
    readonly file: string,
    readonly field: string,
    readonly detail: string,
    opts?: AconErrorOptions,
  ) {
    super(`${file}: ${field}: ${detail}`, opts);
  }
}

/** A bad acon.config.yaml (or an environment override of it). */
export class ConfigError extends InputFileError {
  override name = 'ConfigError';
}

/** A bad task file; the loader keeps going with the other tasks. */
export class TaskFileError extends InputFileError {
  override name = 'TaskFileError';
}

/** A bad guideline file or a generated guideline that fails validation. */
export class GuidelineError extends InputFileError {
  override name = 'GuidelineError';
}

/** What an {@link InvalidInputError} is about, for a caller that words it in its own terms. */
export type InvalidInput = {
  /** The kind of value: `guideline pair`, `split`, `AppWorld task id`. */
  what: string;
  /** The value given, as given. */
  value?: string;
  /** The values accepted, when there is a list of them. */
  valid?: readonly string[];
  /** The options the message names ({@link AconError.options}). */
  options?: readonly string[];
};

/**
 * A value the library cannot use: an unknown name, a malformed reference, options that do not go
 * together, a run that cannot go on as asked. The message says what is wrong in the library's
 * terms and what to do; the fields keep the value, the valid ones and the options it names.
 */
export class InvalidInputError extends AconError {
  override name = 'InvalidInputError';
  override readonly exitCode = 2;
  readonly what: string;
  readonly value: string | undefined;
  readonly valid: readonly string[];

  constructor(message: string, input: InvalidInput, opts?: ErrorOptions) {
    super(message, { ...opts, options: input.options });
    this.what = input.what;
    this.value = input.value;
    this.valid = input.valid ?? [];
  }

  /**
   * `unknown split "bogus"; use one of: train, dev, test` (at most 30 listed, the rest counted;
   * `more` is added in parentheses). Issue #24: an unknown name is an error that lists the valid
   * ones, never an empty result.
   */
  static unknown(
    what: string,
    value: string,
    valid: readonly string[],
    more = '',
  ): InvalidInputError {
    const shown = valid.slice(0, LISTED).join(', ');
    const rest = valid.length > LISTED ? ` … and ${valid.length - LISTED} more` : '';
    const list = valid.length === 0 ? 'none exist' : `use one of: ${shown}${rest}`;
    const message = `unknown ${what} "${value}"; ${list}${more ? ` (${more})` : ''}`;
    return new InvalidInputError(message, { what, value, valid });
  }
}

/** At most this many valid values are listed in an "unknown …" message (the rest are counted). */
const LISTED = 30;

/** An LLM provider failed after retries (HTTP error, timeout, unusable response). */
export class ProviderError extends AconError {
  override name = 'ProviderError';
  constructor(
    message: string,
    readonly status?: number,
    opts?: ErrorOptions,
  ) {
    super(message, opts);
  }
}

/** The provider says the prompt does not fit the model's context window (seed 002: react by compressing). */
export class ContextLengthError extends ProviderError {
  override name = 'ContextLengthError';
}

/** An LLM answered, but not in the shape the caller needs, after the retry budget was spent. */
export class MalformedOutputError extends AconError {
  override name = 'MalformedOutputError';
  constructor(
    message: string,
    readonly raw: string,
    opts?: ErrorOptions,
  ) {
    super(message, opts);
  }
}

/** A benchmark environment failed (unreachable AppWorld server, broken task). */
export class BenchmarkError extends AconError {
  override name = 'BenchmarkError';
}

/** The spending limit (`budget.usd`) was reached; the run stops cleanly and can be resumed. */
export class BudgetExceededError extends AconError {
  override name = 'BudgetExceededError';
  override readonly exitCode = 3;
  constructor(
    readonly spentUsd: number,
    readonly budgetUsd: number,
    readonly runId?: string,
  ) {
    super(
      `budget reached: spent $${spentUsd.toFixed(4)} of $${budgetUsd.toFixed(4)}; raise the budget (\`budget.usd\`) and resume run ${runId ?? 'RUN'} (\`resume\`)`,
      { options: ['budget.usd', 'resume'] },
    );
  }
}

/**
 * The rollout limit (`maxRollouts`, `optimize --max-rollouts`) would be passed by the next
 * rollout: the run stops cleanly, like the spending limit, and can be resumed with a larger one.
 */
export class RolloutLimitError extends AconError {
  override name = 'RolloutLimitError';
  override readonly exitCode = 3;
  constructor(
    /** Rollouts the run has stored (what ran, earlier attempts included). */
    readonly stored: number,
    readonly maxRollouts: number,
    readonly runId?: string,
  ) {
    super(
      `rollout limit reached: ${stored} rollouts of this run ran (limit ${maxRollouts}), finished stages are kept; raise the limit (\`maxRollouts\`) and resume run ${runId ?? 'RUN'} (\`resume\`)`,
      { options: ['maxRollouts', 'resume'] },
    );
  }
}

/** The user pressed Ctrl-C; finished work is stored and the run can be resumed. */
export class InterruptedError extends AconError {
  override name = 'InterruptedError';
  override readonly exitCode = 130;
}

/**
 * Something the user named does not exist (run id, rollout, guideline version, a file to lint):
 * an input error like a malformed one, so the same exit code.
 */
export class NotFoundError extends AconError {
  override name = 'NotFoundError';
  override readonly exitCode = 2;
}

/** The SQLite database cannot be used as it is: not a database, damaged, newer, not writable. */
export class DatabaseError extends AconError {
  override name = 'DatabaseError';
  override readonly exitCode = 2;
  constructor(
    readonly file: string,
    readonly detail: string,
    opts?: AconErrorOptions,
  ) {
    super(`${file}: ${detail}`, opts);
  }
}

/** Another live process works on the run a command wants to resume. */
export class RunBusyError extends AconError {
  override name = 'RunBusyError';
  override readonly exitCode = 2;
}

/**
 * A file acon was asked to write (a report, an export) could not be written: names the file,
 * what the system said, and the fix. Node's write errors (ENOSPC from a write) name no path.
 */
export class OutputFileError extends AconError {
  override name = 'OutputFileError';
  constructor(
    readonly file: string,
    readonly code: string,
    detail: string,
    opts?: ErrorOptions,
  ) {
    super(`${file}: ${detail}`, opts);
  }

  /** The error for a failed write of `file`, with the fix for its cause. */
  static of(file: string, err: unknown): OutputFileError {
    const code = String((err as { code?: unknown } | null)?.code ?? '');
    const what = err instanceof Error ? err.message.split('\n')[0] : String(err);
    const fix =
      code === 'ENOSPC' || code === 'EDQUOT'
        ? 'the disk is full; free space on it, or write the file to another disk'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'the folder is not writable; write the file to a folder you can write'
          : 'write the file to another path';
    return new OutputFileError(file, code, `cannot write it (${what}); ${fix}`, { cause: err });
  }
}

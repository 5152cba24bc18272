import { AconError } from '../errors.js';

/**
 * Wrong command-line usage that commander cannot catch (unknown strategy, bad --tasks): the one
 * error that names flags. Only src/cli/ throws it (test/architecture.test.ts); the library throws
 * InvalidInputError, which src/cli/library-errors.ts words as flags.
 */
export class UsageError extends AconError {
  override name = 'UsageError';
  override readonly exitCode = 2;
}

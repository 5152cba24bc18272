import { UsageError } from './usage-error.js';

/** A whole-number flag ≥ 1 (`--concurrency`, `--rounds`…); undefined when not given. */
export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a whole number ≥ 1, got "${value}"`);
  return n;
}

/** A positive-number flag (`--budget-usd`); undefined when not given. */
export function positiveNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive number, got "${value}"`);
  return n;
}

/** A number flag ≥ 0 (`--shutdown-grace-s`: 0 aborts at once); undefined when not given. */
export function nonNegativeNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new UsageError(`${flag} must be a number ≥ 0, got "${value}"`);
  return n;
}

/** A whole-number flag from `min` to `max` (`--port`, `--unified`); undefined when not given. */
export function wholeNumberIn(
  value: string | undefined,
  flag: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  note = '',
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `from ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`${flag} must be a whole number ${range}${note}, got "${value}"`);
  }
  return n;
}

/**
 * Commander parsers that check a number flag while the command line is parsed, before the
 * command's action starts: a bad value is refused before a database, a run, a guideline or an
 * output file exists (issue #60, case 6), whatever the action does first. They hand the text
 * on unchanged; the action reads it with the function of the same rule.
 * @example cmd.option('--concurrency <n>', 'rollouts in flight', checked.positiveInt('--concurrency'))
 */
export const checked = {
  positiveInt: (flag: string) => (value: string) => (positiveInt(value, flag), value),
  positiveNumber: (flag: string) => (value: string) => (positiveNumber(value, flag), value),
  nonNegativeNumber: (flag: string) => (value: string) => (nonNegativeNumber(value, flag), value),
  wholeNumberIn: (flag: string, min: number, max?: number, note?: string) => (value: string) => (
    wholeNumberIn(value, flag, min, max, note),
    value
  ),
};

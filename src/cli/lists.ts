import { UsageError } from './usage-error.js';

/**
 * A comma-separated flag value as a list; an empty or comma-only value is refused (issue #24: it
 * used to mean "no filter" and ran everything).
 */
export function nameList(value: string, flag: string, example: string): string[] {
  const names = value
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (names.length === 0) {
    throw new UsageError(
      `${flag} names nothing ("${value}"); give a comma-separated list, e.g. ${example}`,
    );
  }
  return names;
}

/**
 * better-sqlite3 is an optional dependency (the library runs without it; issue #59), so a CLI
 * command that keeps runs can meet it missing (`npm install --omit=optional`) or unbuilt (no
 * prebuilt binary for this Node and no compiler, or built for another Node version).
 */
export function isMissingSqlite(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  const text = `${err.message}\n${err.stack ?? ''}`;
  if (!text.includes('better-sqlite3') && !text.includes('better_sqlite3')) return false;
  return (
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    code === 'ERR_DLOPEN_FAILED' ||
    /Could not locate the bindings file|NODE_MODULE_VERSION|invalid ELF header/.test(text)
  );
}

export const MISSING_SQLITE_MESSAGE =
  'better-sqlite3 is not installed or not built for this Node.js, and this command keeps runs in ' +
  'a SQLite database. Fix: `npm rebuild better-sqlite3` (or `npm ci` in a checkout of acon; ' +
  '`npm install better-sqlite3` in a project that left optional dependencies out). The library ' +
  "entry (`import { createContextCompressor } from 'acon'`) works without it.";

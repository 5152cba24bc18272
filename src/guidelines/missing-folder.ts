import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { GuidelineStore } from './store.js';

/**
 * Refuses to run on the active guidelines when their folder is gone but the run database says
 * versions were learned in it (issue #60, case 8). Without the folder the store reads the v0
 * shipped with the package, which is right in a fresh project (nothing was learned yet) and
 * wrong after `rm -rf guidelines`: the run would use other guidelines than the user's without a
 * word. Explicit versions (`--guidelines obs@0,hist@0`, a resumed run's record) are resolved as
 * given, so they are the way to run on the shipped seeds on purpose.
 * @param given the --guidelines spec, null for the active versions
 * @param learned ids of versions the database recorded as learned (not seeds), newest first
 */
export function checkGuidelinesFolder(
  store: GuidelineStore,
  given: string | null,
  learned: readonly string[],
  db: string,
): void {
  if (given !== null || learned.length === 0 || existsSync(store.dir)) return;
  const shown = learned.slice(0, 3).join(', ') + (learned.length > 3 ? ', …' : '');
  throw new UsageError(
    `the guidelines folder ${store.displayPath(store.dir)} is missing, but ${db} records versions learned in it (${shown}); ` +
      `restore the folder (e.g. git checkout -- ${store.displayPath(store.dir)}), or run on the shipped seed versions on purpose with --guidelines obs@0,hist@0`,
  );
}

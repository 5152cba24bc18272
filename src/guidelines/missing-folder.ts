import { existsSync } from 'node:fs';
import { InvalidInputError } from '../errors.js';
import type { GuidelineStore } from './store.js';

/**
 * Refuses to run on the active guidelines when their folder is gone but the run database says
 * versions were learned in it (issue #60, case 8). Without the folder the store reads the v0
 * shipped with the package, which is right in a fresh project (nothing was learned yet) and
 * wrong after `rm -rf guidelines`: the run would use other guidelines than the user's without a
 * word. Explicit versions (`guidelines: obs@0,hist@0`, a resumed run's record) are resolved as
 * given, so they are the way to run on the shipped seeds on purpose.
 * @param given the guideline pair's spec, null for the active versions
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
  const folder = store.displayPath(store.dir);
  throw new InvalidInputError(
    `the guidelines folder ${folder} is missing, but ${db} records versions learned in it (${shown}); ` +
      `restore the folder (e.g. git checkout -- ${folder}), or run on the shipped seed versions on purpose with \`guidelines\` obs@0,hist@0`,
    { what: 'guidelines folder', value: folder, options: ['guidelines'] },
  );
}

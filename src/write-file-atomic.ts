import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { OutputFileError } from './errors.js';

/**
 * Writes `text` to a temporary file next to `path`, then renames it into place: a reader never
 * sees a half-written file (a guideline, the active pointer, a report page, an export's meta),
 * a failed write leaves none behind, and its error names the file and the fix (a full disk, a
 * read-only folder). The one writer of whole files that replace what is there; new guideline
 * files that must not replace one are written by guidelines/version-files.ts's writeNew.
 */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw OutputFileError.of(path, err);
  }
}

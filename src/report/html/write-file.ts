import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { OutputFileError } from '../../errors.js';

/**
 * Writes through a temporary file and a rename: a failed write leaves no half-written page, and
 * its error names the file and the fix (a full disk, a read-only folder).
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

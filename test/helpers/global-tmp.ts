import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest global setup: every test file, and every `acon` the tests start, makes its temporary
 * folders (databases, exports, task files) under one folder of this run, removed at the end, so
 * a test run leaves nothing behind in the system's temporary folder.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'acon-tests-'));
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}

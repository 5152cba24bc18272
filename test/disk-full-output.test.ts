import { existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutputFileError } from '../src/errors.js';
import { JsonlWriter } from '../src/export/jsonl-writer.js';
import { writeFileAtomic } from '../src/write-file-atomic.js';
import { runAcon, tempDir } from './helpers/cli.js';

/**
 * Issue #31, item 8: a report or export that meets a full disk names the file it was writing and
 * the fix. The full disk is real: the temporary file acon writes first is a symlink to
 * /dev/full, where every write fails with ENOSPC (and which nothing is renamed over: the write
 * fails before the rename).
 */

const FULL = '/dev/full';
const FIX = 'the disk is full; free space on it, or write the file to another disk';

describe.skipIf(!existsSync(FULL))('writing a report or an export to a full disk', () => {
  it('names the report file and the fix, and leaves no temporary file', () => {
    const dir = tempDir();
    const page = join(dir, 'report.html');
    const tmp = `${page}.${process.pid}.tmp`;
    symlinkSync(FULL, tmp);
    let thrown: unknown;
    try {
      writeFileAtomic(page, '<html>'.repeat(10_000));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(OutputFileError);
    expect((thrown as Error).message).toBe(
      `${page}: cannot write it (ENOSPC: no space left on device, write); ${FIX}`,
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(lstatSync(FULL).isCharacterDevice()).toBe(true);
  });

  it('names the export file and the fix', async () => {
    const dir = tempDir();
    const file = join(dir, 'train.jsonl');
    symlinkSync(FULL, `${file}.partial`);
    const w = await JsonlWriter.open(file);
    const line = { text: 'x'.repeat(1_000) };
    const err = await (async () => {
      for (let i = 0; i < 1_000; i++) await w.write(line);
      await w.close();
    })().catch((e: unknown) => e);
    await w.abort();
    expect(err).toBeInstanceOf(OutputFileError);
    expect((err as Error).message).toBe(
      `${file}: cannot write it (ENOSPC: no space left on device, write); ${FIX}`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('acon export on a full disk exits non-zero with one line naming the file', async () => {
    const cwd = tempDir();
    const run = await runAcon(
      [
        'run',
        '--bench',
        'apptown',
        '--split',
        'dev',
        '--strategy',
        'raw',
        '--tasks',
        'dev-001-music-phone-wallet',
        '--json',
      ],
      { cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    const runId = (JSON.parse(run.stdout) as { provenance: { runId: string } }).provenance.runId;
    mkdirSync(join(cwd, 'out'));
    const file = join(cwd, 'out', 'agent.jsonl');
    symlinkSync(FULL, `${file}.partial`);
    const r = await runAcon(
      [
        'export',
        '--role',
        'agent',
        '--format',
        'openai',
        '--run',
        runId,
        '--split',
        'dev',
        '--guidelines',
        'all',
        '--out',
        file,
      ],
      { cwd },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: ${file}: cannot write it (ENOSPC: no space left on device, write); ${FIX}\n`,
    );
  }, 120_000);
});

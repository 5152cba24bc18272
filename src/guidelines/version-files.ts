import { linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { GuidelineError } from '../errors.js';
import { GUIDELINE_ID_PATTERN, type Guideline, type GuidelineKind } from './schema.js';

/**
 * How guideline versions sit in a kind's folder (store.ts): the file names and their numbers,
 * the markers that claim a number before its file exists, and how a new file is written (a file
 * that replaces one is written by src/write-file-atomic.ts).
 */

/** Where claimed version numbers are marked until their files exist. */
const RESERVED_DIR = '.reserved';

/** `0003-ut-r1-c2.md` → number 3. */
const FILE_NAME = /^(\d{4,})(?:-(.+))?\.md$/;

export function formatGuidelineId(kind: GuidelineKind, n: number): string {
  return `${kind}-${String(n).padStart(4, '0')}`;
}

export function idNumber(id: string): number {
  const m = GUIDELINE_ID_PATTERN.exec(id);
  return m ? Number(m[2]) : -1;
}

export function slugify(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}

/** The version files of a kind's folder with their numbers, lowest first; none when it is missing. */
export function versionFiles(kindDir: string): { n: number; path: string }[] {
  let names: string[];
  try {
    names = readdirSync(kindDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const files: { n: number; path: string }[] = [];
  for (const name of names) {
    const m = FILE_NAME.exec(name);
    if (m) files.push({ n: Number(m[1]), path: join(kindDir, name) });
  }
  return files.sort((a, b) => a.n - b.n);
}

/**
 * Claims `n` consecutive free numbers by creating their markers exclusively; when another
 * writer got one of them first, lets go of the rest and tries above it.
 */
export function claimNumbers(
  kindDir: string,
  kind: GuidelineKind,
  n: number,
  next: () => number,
): number {
  mkdirSync(join(kindDir, RESERVED_DIR), { recursive: true });
  for (let attempt = 0; attempt < 1000; attempt++) {
    const first = next();
    const made: string[] = [];
    try {
      for (let i = 0; i < n; i++) {
        const marker = claimPath(kindDir, kind, first + i);
        writeFileSync(marker, `${process.pid}\n`, { flag: 'wx' });
        made.push(marker);
      }
      // A writer makes its file while it holds the marker and drops the marker after, so a
      // number whose file exists now was taken between our look and our claim: try again.
      const files = versionFiles(kindDir);
      if (files.some((f) => f.n >= first && f.n < first + n)) {
        for (const marker of made) rmSync(marker, { force: true });
        continue;
      }
      return first;
    } catch (err) {
      for (const marker of made) rmSync(marker, { force: true });
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new GuidelineError(
    join(kindDir, RESERVED_DIR),
    'id',
    'could not claim a free version number after 1000 tries; too many writers at once',
  );
}

/** The marker that claims number `n` of a kind. */
export function claimPath(kindDir: string, kind: GuidelineKind, n: number): string {
  return join(kindDir, RESERVED_DIR, formatGuidelineId(kind, n).slice(kind.length + 1));
}

/** Numbers claimed (markers present) but not yet written as version files. */
export function claimedNumbers(kindDir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(join(kindDir, RESERVED_DIR));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names.filter((name) => /^\d{4,}$/.test(name)).map(Number);
}

/**
 * Writes a new file: a temp file next to `path`, hard-linked into place, which fails rather
 * than replace a file that is there (a rename would overwrite it).
 */
export function writeNew(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, content, { flag: 'wx' });
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new GuidelineError(path, 'id', 'a file of that name exists; nothing was overwritten', {
        cause: err,
      });
    }
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Every version file of a kind's folder, parsed with `parse`, lowest number first.
 *
 * @throws GuidelineError when two files have one number or a file's id is not its name's
 */
export function readVersions(
  kindDir: string,
  kind: GuidelineKind,
  parse: (path: string) => Guideline,
): (Guideline & { path: string })[] {
  const versions: (Guideline & { path: string })[] = [];
  const byNumber = new Map<number, string>();
  for (const { n, path } of versionFiles(kindDir)) {
    const expected = formatGuidelineId(kind, n);
    const other = byNumber.get(n);
    if (other !== undefined) {
      throw new GuidelineError(
        path,
        'id',
        `${basename(other)} has the same number; rename one of them to the next free number`,
      );
    }
    byNumber.set(n, path);
    const g = parse(path);
    if (g.id !== expected) {
      throw new GuidelineError(
        path,
        'id',
        `id ${g.id} does not match the file name (expected ${expected}); fix the id or rename the file`,
      );
    }
    versions.push({ ...g, path });
  }
  return versions;
}

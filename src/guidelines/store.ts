import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GuidelineError, InvalidInputError, NotFoundError } from '../errors.js';
import { writeFileAtomic } from '../write-file-atomic.js';
import {
  claimedNumbers,
  claimNumbers,
  claimPath,
  formatGuidelineId,
  idNumber,
  readVersions,
  slugify,
  versionFiles,
  writeNew,
} from './version-files.js';
import { newVersion, type NewGuideline } from './new-version.js';
import type { GuidelineVersionRow } from '../store/index.js';
import { parseGuideline, readGuidelineFile, serializeGuideline } from './file.js';
import {
  GUIDELINE_KINDS,
  GuidelineIdSchema,
  GuidelineKindSchema,
  GuidelineSchema,
  type Guideline,
  type GuidelineKind,
  type GuidelineMetrics,
  type GuidelineStatus,
} from './schema.js';

/** A guideline version together with the file it was read from. */
export type StoredGuideline = Guideline & { path: string };
export type { NewGuideline };

export type GuidelineStoreOptions = {
  /** The guideline directory. @default `./guidelines` in the current working directory */
  dir?: string;
  /** Where the v0 files shipped with the package live. @default the package's `guidelines/` */
  seedDir?: string;
  /** Clock for `created`. @default () => new Date() */
  now?: () => Date;
};

/** The package root's `guidelines/`, from both src/guidelines and dist/guidelines. */
export const PACKAGE_GUIDELINES_DIR = fileURLToPath(new URL('../../guidelines/', import.meta.url));

export { formatGuidelineId };

export const ACTIVE_FILE = 'ACTIVE';

const REF_HELP =
  'name one by id (obs-0003), <kind>@<n> (obs@3), <kind>@active, <kind>@latest or the path of a guideline file';

/**
 * Guideline versions on disk (ARCHITECTURE §3): `<dir>/<obs|hist>/<NNNN>-<slug>.md` and
 * `<dir>/<kind>/ACTIVE` holding the active id (no ACTIVE file: the seed `<kind>-0000` is active).
 *
 * A directory without a v0 reads the v0 shipped with the package; the first write or promote of
 * a kind copies that v0 in, so every lineage in the directory starts at a local seed.
 *
 * Ids are claimed by creating a marker file `<kind>/.reserved/<NNNN>` exclusively (`wx`): of
 * two writers, in one process or in two acon runs sharing the folder, only one gets a number
 * (issue #31). A new version's file is linked into place, never renamed over an existing file.
 * Ids are never reused: the next one is above every file, every parent reference, the ACTIVE
 * pointer, every number claimed by another writer (a marker goes once its version file exists)
 * and every number this store has claimed.
 */
export class GuidelineStore {
  readonly dir: string;
  readonly seedDir: string;
  private readonly now: () => Date;
  /** The highest number this store claimed per kind: never handed out again by it. */
  private readonly issued = new Map<GuidelineKind, number>();
  /**
   * Each file's last parse, by path, with the text it was parsed from: a lookup lists the whole
   * directory, and an optimize looks versions up thousands of times (issue #28). A file is
   * still read every time; only unchanged text skips the YAML parse.
   */
  private readonly parsed = new Map<string, { content: string; guideline: Guideline }>();

  constructor(options: GuidelineStoreOptions = {}) {
    this.dir = resolve(options.dir ?? 'guidelines');
    this.seedDir = resolve(options.seedDir ?? PACKAGE_GUIDELINES_DIR);
    this.now = options.now ?? (() => new Date());
  }

  /** Versions of one kind, or of both (obs first), oldest first. */
  list(kind?: GuidelineKind): StoredGuideline[] {
    if (kind === undefined) return GUIDELINE_KINDS.flatMap((k) => this.list(k));
    const local = readVersions(join(this.dir, kind), kind, (path) => this.parseFile(path));
    if (local.some((g) => idNumber(g.id) === 0)) return local;
    const seed = this.packageSeed(kind);
    return seed ? [seed, ...local] : local;
  }

  /**
   * Resolves a version reference: an id (`obs-0003`, also `obs-3`), `obs@3`, `obs@active`,
   * `obs@latest` (the newest version that was not rejected: the optimizer's last accepted one)
   * or a path to a guideline file. Rejected candidates are reached by id or number.
   *
   * @throws InvalidInputError for a reference that is none of these; NotFoundError when it names nothing
   */
  get(ref: string): StoredGuideline {
    const trimmed = ref.trim();
    const byId = /^(obs|hist)-(\d+)$/.exec(trimmed);
    if (byId) return this.byId(formatGuidelineId(byId[1] as GuidelineKind, Number(byId[2])));
    const at = /^(obs|hist)@(.+)$/.exec(trimmed);
    if (at) {
      const kind = at[1] as GuidelineKind;
      const selector = (at[2] ?? '').toLowerCase();
      if (selector === 'active') return this.active(kind);
      if (selector === 'latest') {
        const latest = this.list(kind).findLast(
          (g) => g.status !== 'rejected' && g.status !== 'candidate',
        );
        if (!latest) throw this.notFound(`${kind}@latest`, kind);
        return latest;
      }
      if (/^\d+$/.test(selector)) return this.byId(formatGuidelineId(kind, Number(selector)));
      throw this.unknownRef(ref, kind);
    }
    if (trimmed.endsWith('.md') || trimmed.includes('/') || trimmed.includes(sep)) {
      const path = resolve(trimmed);
      return { ...readGuidelineFile(path), path };
    }
    throw this.unknownRef(ref);
  }

  /**
   * `unknown guideline version "obs@actve"; versions: obs-0000, obs-0001; name one by id …` (of
   * the kind named, else of both; the newest 12 when there are more).
   */
  private unknownRef(ref: string, kind?: GuidelineKind): InvalidInputError {
    const valid = this.list(kind).map((g) => g.id);
    const listed = valid.length > 12 ? ['…', ...valid.slice(-12)] : valid;
    const message = `unknown guideline version "${ref}"; versions: ${listed.join(', ') || 'none'}; ${REF_HELP}`;
    return new InvalidInputError(message, { what: 'guideline version', value: ref, valid });
  }

  /** The active version: the id in `<kind>/ACTIVE`, else the seed. */
  active(kind: GuidelineKind): StoredGuideline {
    const id = this.activeId(kind);
    const found = this.list(kind).find((g) => g.id === id);
    if (found) return found;
    if (existsSync(this.activePath(kind))) {
      throw new GuidelineError(
        this.activePath(kind),
        'id',
        `ACTIVE points to ${id}, which does not exist; run \`acon guidelines promote <version>\` or delete the file to fall back to ${formatGuidelineId(kind, 0)}`,
      );
    }
    throw this.notFound(id, kind);
  }

  /** The id the ACTIVE pointer names (not checked against the files), else the seed's id. */
  activeId(kind: GuidelineKind): string {
    const file = this.activePath(kind);
    if (!existsSync(file)) return formatGuidelineId(kind, 0);
    const raw = readFileSync(file, 'utf8').trim();
    if (raw === '') return formatGuidelineId(kind, 0);
    const parsed = GuidelineIdSchema.safeParse(raw);
    if (!parsed.success || !parsed.data.startsWith(`${kind}-`)) {
      throw new GuidelineError(
        file,
        'id',
        `expected one ${kind} id like ${formatGuidelineId(kind, 3)}, got ${JSON.stringify(raw.slice(0, 40))}; run \`acon guidelines promote <version>\` to rewrite it`,
      );
    }
    return parsed.data;
  }

  /** The id the next {@link write} of this kind will get. */
  nextId(kind: GuidelineKind): string {
    let max = Math.max(this.issued.get(kind) ?? -1, ...claimedNumbers(join(this.dir, kind)));
    for (const g of this.list(kind)) {
      max = Math.max(max, idNumber(g.id), g.parent === null ? -1 : idNumber(g.parent));
    }
    if (existsSync(this.activePath(kind))) max = Math.max(max, idNumber(this.activeId(kind)));
    return formatGuidelineId(kind, max + 1);
  }

  /**
   * Writes a new version (temp file + rename, so a reader never sees half a file) and returns
   * it. Seeds the directory with the package v0 first if it has none.
   *
   * @throws GuidelineError when the text or metadata is invalid or the parent does not exist
   */
  write(input: NewGuideline): StoredGuideline {
    const kind = GuidelineKindSchema.parse(input.kind);
    this.ensureSeed(kind);
    const id = input.id ?? formatGuidelineId(kind, this.claim(kind, 1));
    if (input.id !== undefined && idNumber(id) < 0) {
      throw new InvalidInputError(`reserved guideline id "${id}" is not an id like obs-0003`, {
        what: 'guideline id',
        value: id,
      });
    }
    const slug = slugify(input.slug ?? input.phase) || input.phase;
    const path = join(this.dir, kind, `${id.slice(kind.length + 1)}-${slug}.md`);
    if (input.parent !== null && !this.list(kind).some((g) => g.id === input.parent)) {
      throw new GuidelineError(
        path,
        'parent',
        `parent ${input.parent} does not exist in ${this.dir}; pass the id of an existing ${kind} version`,
      );
    }
    const version = newVersion(input, { id, kind, created: this.now().toISOString(), path });
    const taken = versionFiles(join(this.dir, kind)).find((f) => f.n === idNumber(id));
    if (taken) {
      throw new GuidelineError(
        path,
        'id',
        `${basename(taken.path)} already holds ${id}; nothing was overwritten. Resume the run that reserved it, or start a new one`,
      );
    }
    writeNew(path, serializeGuideline(version));
    rmSync(claimPath(join(this.dir, kind), kind, idNumber(id)), { force: true });
    return { ...version, path };
  }

  /**
   * Takes the next `n` ids of a kind without writing files, so a caller can record them (in
   * the run's database) before any file exists: a kill between the record and the files leaves
   * ids to fill in on resume, never orphan files or shifted ids.
   */
  reserveIds(kind: GuidelineKind, n: number): string[] {
    this.ensureSeed(kind);
    if (n <= 0) return [];
    const first = this.claim(kind, n);
    return Array.from({ length: n }, (_, i) => formatGuidelineId(kind, first + i));
  }

  /** Claims `n` consecutive free numbers (version-files.ts) and remembers them as issued. */
  private claim(kind: GuidelineKind, n: number): number {
    const next = () => idNumber(this.nextId(kind));
    const first = claimNumbers(join(this.dir, kind), kind, n, next);
    this.issued.set(kind, first + n - 1);
    return first;
  }

  /** The version with this id when its file exists; undefined otherwise. */
  find(id: string): StoredGuideline | undefined {
    const kind = GuidelineKindSchema.parse(id.split('-')[0]);
    return this.list(kind).find((g) => g.id === id);
  }

  /**
   * Records the outcome of a version's evaluation (status and metrics) in its file, atomically.
   * Only the optimizer's bookkeeping changes; the text and lineage of a version never do.
   */
  update(
    id: string,
    patch: { status?: GuidelineStatus; metrics?: GuidelineMetrics },
  ): StoredGuideline {
    const g = this.get(id);
    const next = GuidelineSchema.parse({
      ...g,
      path: undefined,
      ...(patch.status !== undefined && { status: patch.status }),
      ...(patch.metrics !== undefined && { metrics: { ...g.metrics, ...patch.metrics } }),
    });
    writeFileAtomic(g.path, serializeGuideline(next));
    return { ...next, path: g.path };
  }

  /**
   * Makes a version the active one (writes `<kind>/ACTIVE`).
   *
   * @returns the previously active id and the new one
   */
  promote(ref: string): { kind: GuidelineKind; previous: string; current: StoredGuideline } {
    const target = this.get(ref);
    const inStore = this.list(target.kind).find((g) => g.id === target.id);
    if (!inStore || resolve(inStore.path) !== resolve(target.path)) {
      throw new InvalidInputError(
        `${target.path} is not a version in ${this.dir}; copy it there as ${target.kind}/${target.id.slice(target.kind.length + 1)}-<slug>.md first`,
        { what: 'guideline version', value: ref },
      );
    }
    const previous = this.activeId(target.kind);
    this.ensureSeed(target.kind);
    writeFileAtomic(this.activePath(target.kind), `${target.id}\n`);
    return { kind: target.kind, previous, current: inStore };
  }

  /**
   * The chain from the seed to the given version (seed first).
   *
   * @throws GuidelineError when a parent is missing or the parents form a cycle
   */
  lineage(ref: string): StoredGuideline[] {
    const start = this.get(ref);
    const byId = new Map(this.list(start.kind).map((g) => [g.id, g]));
    const chain: StoredGuideline[] = [start];
    const seen = new Set([start.id]);
    let cur = start;
    while (cur.parent !== null) {
      const parent = byId.get(cur.parent);
      if (!parent) {
        throw new GuidelineError(
          cur.path,
          'parent',
          `parent ${cur.parent} does not exist in ${this.dir}; restore it or set parent to an existing version`,
        );
      }
      if (seen.has(parent.id)) {
        throw new GuidelineError(cur.path, 'parent', `the parents of ${start.id} form a cycle`);
      }
      seen.add(parent.id);
      chain.push(parent);
      cur = parent;
    }
    return chain.reverse();
  }

  /** Copies the package v0 of a kind into the directory if it has no v0 yet. */
  ensureSeed(kind: GuidelineKind): void {
    const kindDir = join(this.dir, kind);
    if (versionFiles(kindDir).some((f) => f.n === 0)) return;
    const seed = this.packageSeed(kind);
    if (!seed) return;
    // Linked in whole from a temp copy: another process may be listing this folder, or
    // seeding it at the same moment (the first link wins, the same text either way).
    try {
      writeNew(join(kindDir, basename(seed.path)), readFileSync(seed.path, 'utf8'));
    } catch (err) {
      if (!(err instanceof GuidelineError && err.field === 'id')) throw err;
    }
  }

  /** Where a path sits relative to the working directory (for messages and tables). */
  displayPath(path: string): string {
    const rel = relative(process.cwd(), path);
    return rel !== '' && !rel.startsWith('..') ? rel : path;
  }

  private activePath(kind: GuidelineKind): string {
    return join(this.dir, kind, ACTIVE_FILE);
  }

  private byId(id: string): StoredGuideline {
    const kind = id.split('-')[0] as GuidelineKind;
    const found = this.list(kind).find((g) => g.id === id);
    if (!found) throw this.notFound(id, kind);
    return found;
  }

  private notFound(what: string, kind: GuidelineKind): NotFoundError {
    return new NotFoundError(
      `guideline ${what} not found in ${this.dir}; \`acon guidelines log --kind ${kind}\` lists the versions`,
    );
  }

  private packageSeed(kind: GuidelineKind): StoredGuideline | undefined {
    const seed = versionFiles(join(this.seedDir, kind)).find((f) => f.n === 0);
    if (!seed) return undefined;
    return { ...readGuidelineFile(seed.path), path: seed.path };
  }

  private parseFile(path: string): Guideline {
    const content = readFileSync(path, 'utf8');
    const last = this.parsed.get(path);
    if (last?.content === content) return last.guideline;
    const guideline = parseGuideline(content, path);
    this.parsed.set(path, { content, guideline });
    return guideline;
  }
}

/** The row `RunStore.saveGuidelineVersion` mirrors into SQLite. */
export function toVersionRow(g: StoredGuideline): GuidelineVersionRow {
  return {
    id: g.id,
    kind: g.kind,
    parent: g.parent,
    phase: g.phase,
    runId: g.run,
    status: g.status,
    path: g.path,
    text: g.text,
    metrics: g.metrics,
    createdAt: g.created,
  };
}

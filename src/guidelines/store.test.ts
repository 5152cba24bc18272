import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GuidelineError, InvalidInputError, NotFoundError } from '../errors.js';
import { parseGuideline } from './file.js';
import {
  GuidelineStore,
  PACKAGE_GUIDELINES_DIR,
  toVersionRow,
  type NewGuideline,
} from './store.js';

const NOW = new Date('2026-11-22T03:16:00.000Z');

function candidate(over: Partial<NewGuideline> = {}): NewGuideline {
  return {
    kind: 'obs',
    parent: 'obs-0000',
    phase: 'ut',
    run: 'run-1',
    metrics: { accuracy: 0.6, peakTokens: 3100 },
    text: 'Keep every id.\nKEEP: id',
    ...over,
  };
}

describe('GuidelineStore', () => {
  let dir: string;
  let store: GuidelineStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acon-guidelines-'));
    store = new GuidelineStore({ dir, now: () => NOW });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the package v0 for a fresh directory without writing anything', () => {
    const versions = store.list();
    expect(versions.map((v) => v.id)).toEqual(['obs-0000', 'hist-0000']);
    expect(versions[0]?.path.startsWith(PACKAGE_GUIDELINES_DIR)).toBe(true);
    expect(store.active('obs').id).toBe('obs-0000');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('seeds the directory with the package v0 on the first write', () => {
    const g = store.write(candidate({ slug: 'UT round 1 / cand 2' }));
    expect(g.id).toBe('obs-0001');
    expect(g.path).toBe(join(dir, 'obs', '0001-ut-round-1-cand-2.md'));
    const seedFile = readdirSync(join(dir, 'obs')).find((f) => f.startsWith('0000-'));
    expect(seedFile).toBeDefined();
    const shipped = readdirSync(join(PACKAGE_GUIDELINES_DIR, 'obs')).find((f) =>
      f.startsWith('0000-'),
    );
    expect(readFileSync(join(dir, 'obs', seedFile ?? ''), 'utf8')).toBe(
      readFileSync(join(PACKAGE_GUIDELINES_DIR, 'obs', shipped ?? ''), 'utf8'),
    );
    expect(store.list('obs').map((v) => v.path.startsWith(dir))).toEqual([true, true]);
  });

  it('sees a file edited after it was read, and a broken edit fails the next read', () => {
    const g = store.write(candidate());
    expect(store.get(g.id).text).toBe('Keep every id.\nKEEP: id');
    writeFileSync(
      g.path,
      readFileSync(g.path, 'utf8').replace('Keep every id.', 'Keep every URL.'),
    );
    expect(store.get(g.id).text).toBe('Keep every URL.\nKEEP: id');
    writeFileSync(g.path, 'no front matter');
    expect(() => store.get(g.id)).toThrow(GuidelineError);
  });

  it('writes a parseable file with the assigned id and creation time', () => {
    const g = store.write(
      candidate({ status: 'rejected', analyses: ['lost the id'], rationale: 'keep ids' }),
    );
    const onDisk = parseGuideline(readFileSync(g.path, 'utf8'), g.path);
    expect(onDisk).toEqual({
      id: 'obs-0001',
      kind: 'obs',
      parent: 'obs-0000',
      phase: 'ut',
      run: 'run-1',
      status: 'rejected',
      created: '2026-11-22T03:16:00.000Z',
      metrics: { accuracy: 0.6, peakTokens: 3100 },
      analyses: ['lost the id'],
      rationale: 'keep ids',
      text: 'Keep every id.\nKEEP: id',
    });
    expect(readdirSync(join(dir, 'obs')).some((f) => f.endsWith('.tmp'))).toBe(false);
  });

  it('numbers versions sequentially per kind', () => {
    expect(store.nextId('obs')).toBe('obs-0001');
    const a = store.write(candidate());
    const b = store.write(candidate({ parent: a.id }));
    const h = store.write(candidate({ kind: 'hist', parent: 'hist-0000' }));
    expect([a.id, b.id, h.id]).toEqual(['obs-0001', 'obs-0002', 'hist-0001']);
    expect(store.nextId('obs')).toBe('obs-0003');
  });

  it('never reuses an id, even after the newest file is deleted', () => {
    store.write(candidate());
    const b = store.write(candidate());
    rmSync(b.path);
    expect(store.write(candidate()).id).toBe('obs-0003');
    // A fresh store continues above the highest file.
    expect(new GuidelineStore({ dir }).nextId('obs')).toBe('obs-0004');
  });

  it('gives concurrent writers distinct ids', async () => {
    const ids = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        await new Promise((r) => setTimeout(r, i % 3));
        return store.write(candidate({ slug: `c${i}` })).id;
      }),
    );
    expect(new Set(ids).size).toBe(12);
    expect(store.list('obs')).toHaveLength(13);
  });

  it('resolves ids, kind@n, @latest, @active and file paths', () => {
    const a = store.write(candidate());
    const b = store.write(candidate({ parent: a.id, status: 'rejected' }));
    expect(store.get('obs-0001').id).toBe(a.id);
    expect(store.get('obs-1').id).toBe(a.id);
    expect(store.get('obs@1').id).toBe(a.id);
    expect(store.get('obs@0').id).toBe('obs-0000');
    expect(store.get('obs@latest').id).toBe(a.id);
    expect(store.get('obs@active').id).toBe('obs-0000');
    expect(store.get(b.path).id).toBe(b.id);
    expect(store.get('hist@latest').id).toBe('hist-0000');
  });

  it('skips rejected candidates for @latest', () => {
    store.write(candidate({ status: 'rejected' }));
    expect(store.get('obs@latest').id).toBe('obs-0000');
    const b = store.write(candidate());
    store.write(candidate({ parent: b.id, status: 'rejected' }));
    expect(store.get('obs@latest').id).toBe(b.id);
  });

  it.each(['obs', 'obs@best', 'v3', 'obs-0001x'])('rejects the malformed reference %j', (ref) => {
    expect(() => store.get(ref)).toThrow(InvalidInputError);
  });

  it('says how to list versions when one is missing', () => {
    expect(() => store.get('obs@7')).toThrow(NotFoundError);
    expect(() => store.get('obs@7')).toThrow(/acon guidelines log --kind obs/);
    expect(() => store.get(join(dir, 'nope.md'))).toThrow(NotFoundError);
  });

  it('promotes a version by writing ACTIVE', () => {
    const a = store.write(candidate());
    const result = store.promote('obs@latest');
    expect(result).toMatchObject({ kind: 'obs', previous: 'obs-0000', current: { id: a.id } });
    expect(readFileSync(join(dir, 'obs', 'ACTIVE'), 'utf8')).toBe('obs-0001\n');
    expect(store.active('obs').id).toBe('obs-0001');
    expect(store.get('obs@active').id).toBe('obs-0001');
    expect(store.active('hist').id).toBe('hist-0000');
    expect(store.promote('obs-0000').previous).toBe('obs-0001');
    expect(store.active('obs').id).toBe('obs-0000');
  });

  it('seeds before promoting in a fresh directory', () => {
    store.promote('hist@0');
    expect(readFileSync(join(dir, 'hist', 'ACTIVE'), 'utf8')).toBe('hist-0000\n');
    expect(store.active('hist').path.startsWith(dir)).toBe(true);
  });

  it('refuses to promote a file outside the directory', () => {
    const outside = join(dir, 'elsewhere.md');
    writeFileSync(outside, readFileSync(store.get('obs-0000').path, 'utf8'));
    expect(() => store.promote(outside)).toThrow(InvalidInputError);
  });

  it('reports a broken ACTIVE pointer with the file and the fix', () => {
    mkdirSync(join(dir, 'obs'), { recursive: true });
    writeFileSync(join(dir, 'obs', 'ACTIVE'), 'obs-0042\n');
    expect(() => store.active('obs')).toThrow(GuidelineError);
    expect(() => store.active('obs')).toThrow(/ACTIVE points to obs-0042.*acon guidelines promote/);
    writeFileSync(join(dir, 'obs', 'ACTIVE'), 'hist-0001\n');
    expect(() => store.activeId('obs')).toThrow(/expected one obs id/);
  });

  it('follows the lineage from the seed', () => {
    const a = store.write(candidate());
    store.write(candidate({ parent: a.id }));
    const c = store.write(candidate({ parent: a.id, phase: 'co' }));
    expect(store.lineage(c.id).map((g) => g.id)).toEqual(['obs-0000', 'obs-0001', 'obs-0003']);
    expect(store.lineage('obs-0000').map((g) => g.id)).toEqual(['obs-0000']);
  });

  it('rejects a write whose parent does not exist or whose text is empty', () => {
    expect(() => store.write(candidate({ parent: 'obs-0009' }))).toThrow(
      /parent obs-0009 does not exist/,
    );
    expect(() => store.write(candidate({ text: '   ' }))).toThrow(GuidelineError);
    expect(() => store.write(candidate({ text: '   ' }))).toThrow(
      /text: the guideline text is empty/,
    );
  });

  it('names a file whose id does not match its name', () => {
    const a = store.write(candidate());
    writeFileSync(join(dir, 'obs', '0005-copy.md'), readFileSync(a.path, 'utf8'));
    expect(() => store.list('obs')).toThrow(
      /0005-copy\.md: id: id obs-0001 does not match the file name/,
    );
  });

  it('ignores temp files and other names in a kind directory', () => {
    store.write(candidate());
    writeFileSync(join(dir, 'obs', '0002-x.md.123.abc.tmp'), 'partial');
    writeFileSync(join(dir, 'obs', 'README.md'), '# notes');
    expect(store.list('obs').map((g) => g.id)).toEqual(['obs-0000', 'obs-0001']);
  });

  it('maps a version to the SQLite mirror row', () => {
    const g = store.write(candidate());
    expect(toVersionRow(g)).toEqual({
      id: 'obs-0001',
      kind: 'obs',
      parent: 'obs-0000',
      phase: 'ut',
      runId: 'run-1',
      status: 'accepted',
      path: g.path,
      text: 'Keep every id.\nKEEP: id',
      metrics: { accuracy: 0.6, peakTokens: 3100 },
      createdAt: '2026-11-22T03:16:00.000Z',
    });
  });

  it('uses a custom seed directory', () => {
    const seeds = mkdtempSync(join(tmpdir(), 'acon-seeds-'));
    try {
      mkdirSync(join(seeds, 'obs'));
      writeFileSync(
        join(seeds, 'obs', '0000-tiny.md'),
        '---\nid: obs-0000\nkind: obs\nparent: null\nphase: seed\nrun: null\ncreated: 2026-01-01\nmetrics: {}\n---\nTiny.\n',
      );
      const s = new GuidelineStore({ dir, seedDir: seeds });
      expect(s.get('obs@0').text).toBe('Tiny.');
      expect(s.list('hist')).toEqual([]);
      expect(() => s.active('hist')).toThrow(NotFoundError);
      s.write(candidate());
      expect(existsSync(join(dir, 'obs', '0000-tiny.md'))).toBe(true);
    } finally {
      rmSync(seeds, { recursive: true, force: true });
    }
  });
});

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { conditionList, registerExport } from '../src/cli/export.js';
import { exportDataset, type ExportOptions } from '../src/export/index.js';
import { buildFixture, RUN_ID, type Fixture } from './export-fixture.js';

let fx: Fixture | null = null;
afterEach(() => {
  vi.restoreAllMocks();
  fx?.store.close();
  fx = null;
});

function mixed(): Fixture {
  fx = buildFixture({ mixed: true });
  return fx;
}

async function exp(f: Fixture, opts: Partial<ExportOptions> & { out?: string } = {}) {
  const out = opts.out ?? join(f.dir, 'out', 'hist.jsonl');
  const summary = await exportDataset(
    { role: 'hist', format: 'openai', ...opts, out },
    { store: f.store, version: '0.0.0-test' },
  );
  const meta = JSON.parse(readFileSync(summary.files.meta, 'utf8')) as {
    sources: { splits: Record<string, number>; guidelines: Record<string, number> };
    export: { splits: string[] | null; guidelines: string[] | null };
  };
  return { summary, meta, out };
}

const tasksOf = (file: string) =>
  new Set([...readFileSync(file, 'utf8').matchAll(/<task>(\w+)<\/task>/g)].map((m) => m[1]));

describe('acon export: the clean teacher set by default', () => {
  it('takes successful train rollouts under the final guideline, and says so in the meta', async () => {
    const f = mixed();
    const { summary, meta, out } = await exp(f);
    // t1–t4 succeeded under hist-0001 on train; d1 (dev) and t6 (a rejected candidate) are left out.
    expect(tasksOf(out)).toEqual(new Set(['t1', 't2', 't3', 't4']));
    expect(meta.sources).toEqual({
      splits: { train: summary.examples.total },
      guidelines: { 'hist-0001': summary.examples.total },
    });
    expect(meta.export).toMatchObject({ splits: ['train'], guidelines: ['hist-0001'] });
    expect(summary.warnings).toEqual([]);
  });

  it('filters by split and guideline when asked, and warns about dev or test data', async () => {
    const f = mixed();
    const dev = await exp(f, { splits: ['train', 'dev'] });
    expect(tasksOf(dev.out)).toContain('d1');
    expect(dev.meta.sources.splits).toEqual({ dev: 1, train: dev.summary.examples.total - 1 });
    expect(dev.summary.warnings[0]).toMatch(
      /^exporting rollouts of dev: a student trained on them/,
    );

    const all = await exp(f, { splits: null, guidelines: null, out: join(f.dir, 'all.jsonl') });
    expect(all.meta.sources.guidelines).toMatchObject({ 'hist-0001': 5, 'hist-0002': 1 });
    expect(all.summary.warnings[0]).toMatch(/every split/);

    const cand = await exp(f, { guidelines: ['hist-0002'], out: join(f.dir, 'c.jsonl') });
    expect(tasksOf(cand.out)).toEqual(new Set(['t6']));
    expect(cand.meta.sources.guidelines).toEqual({ 'hist-0002': 1 });
  });

  it('exports the UT versions with --from ut, the final ones by default', async () => {
    const f = mixed();
    // As optimize records it: hist-0002 after the utility phase, hist-0001 at the end.
    f.store.setRunStatus(RUN_ID, 'finished', {
      ut: { obs: 'obs-0002', hist: 'hist-0002' },
      final: { obs: 'obs-0001', hist: 'hist-0001' },
    });
    const ut = await exp(f, { from: 'ut', out: join(f.dir, 'ut.jsonl') });
    expect(tasksOf(ut.out)).toEqual(new Set(['t6']));
    expect(ut.meta.sources.guidelines).toEqual({ 'hist-0002': 1 });
    const final = await exp(f, { out: join(f.dir, 'final.jsonl') });
    expect(tasksOf(final.out)).toEqual(new Set(['t1', 't2', 't3', 't4']));
  });

  it('refuses --from ut for a run that recorded no UT versions, saying what to do', async () => {
    const f = mixed();
    await expect(exp(f, { from: 'ut' })).rejects.toThrow(/recorded no UT guidelines.*`from` final/);
  });

  it('accepts a condition label that contains a comma', async () => {
    const f = mixed();
    expect(conditionList('acon[obs-0002,hist-0002], naive')).toEqual([
      'acon[obs-0002,hist-0002]',
      'naive',
    ]);
    const { out } = await exp(f, { conditions: ['acon[obs-0002,hist-0002]'], guidelines: null });
    expect(tasksOf(out)).toEqual(new Set(['t6']));
  });

  it('removes a stale validation file and its dataset_info entry, keeping other datasets', async () => {
    const f = mixed();
    const dir = join(f.dir, 'lf');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'dataset_info.json'), '{"mine": {"file_name": "mine.json"}}\n');
    const out = join(dir, 'hist.jsonl');
    const first = await exp(f, { format: 'sharegpt', out, valRatio: 0.5 });
    expect(existsSync(first.summary.files.val!)).toBe(true);
    const second = await exp(f, { format: 'sharegpt', out, valRatio: 0 });
    expect(second.summary.files.val).toBeNull();
    expect(existsSync(join(dir, 'hist.val.jsonl'))).toBe(false);
    const info = JSON.parse(readFileSync(join(dir, 'dataset_info.json'), 'utf8')) as object;
    expect(Object.keys(info).sort()).toEqual(['hist', 'mine']);
    // Meta and sidecars are written through a temporary file renamed into place.
    expect(readdirSync(dir).filter((n) => n.includes('.tmp') || n.endsWith('.partial'))).toEqual(
      [],
    );
  });
});

describe('acon export CLI', () => {
  async function acon(args: string[]): Promise<{ out: string; err: string }> {
    let out = '';
    let err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => {
      out += String(c);
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
      err += String(c);
      return true;
    });
    const program = new Command('acon').option('-c, --config <file>').exitOverride();
    registerExport(program);
    try {
      await program.parseAsync(['node', 'acon', ...args]);
    } finally {
      vi.restoreAllMocks();
    }
    return { out, err };
  }

  it('takes --condition labels with commas and prints a warning line only for dev data', async () => {
    const f = mixed();
    // The run named: the folder's active hist (the seed) is not the run's final version, which
    // would add a note about the default choice (issue #24), not what this test is about.
    const base = ['export', '--role', 'hist', '--format', 'openai', '--db', f.dbPath, '--json'];
    base.push('--run', RUN_ID);
    const clean = await acon([...base, '--out', join(f.dir, 'a.jsonl')]);
    expect(clean.err).toBe('');
    const label = await acon([
      ...base,
      '--out',
      join(f.dir, 'b.jsonl'),
      '--condition',
      'acon[obs-0002,hist-0002]',
      '--guidelines',
      'all',
    ]);
    expect(JSON.parse(label.out)).toMatchObject({ examples: { total: 1 } });
    const dev = await acon([...base, '--out', join(f.dir, 'c.jsonl'), '--split', 'dev']);
    expect(dev.err).toMatch(/^warning: exporting rollouts of dev: .*\n$/);
    expect(JSON.parse(dev.out)).toMatchObject({ sources: { splits: { dev: 1 } } });
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DOC_TABLES,
  markedBlocks,
  readPage,
  rewrite,
  type DocTable,
} from '../scripts/docs/doc-tables.js';
import { measure } from '../scripts/docs/measure.js';
import { readRecord } from '../scripts/docs/measured-record.js';
import { MEASUREMENTS } from '../scripts/docs/measurements.js';
import { verdictLines } from '../scripts/docs/measured-tables.js';
import { SIM_SEEDS_DIR } from '../scripts/docs/sim-seeds-tables.js';
import { ManifestSchema, StoredSetSchema } from '../scripts/bench/sim-seed-bands.js';

/**
 * Issue #58: the docs' generated tables are what the code prints (`npm run docs:tables`): the
 * blocks are what their records render to, every record the docs need is committed, and the cheap
 * commands still print what their records hold (the expensive ones are measured again with
 * `npm run docs:tables -- --measure all`).
 */
describe('docs generated tables', () => {
  it('every registered table has its markers in its page, and every marker a table', () => {
    for (const t of DOC_TABLES) {
      expect(markedBlocks(readPage(t.page)).has(t.name), `${t.page}: ${t.name}`).toBe(true);
    }
    const names = new Set(DOC_TABLES.map((t) => t.name));
    for (const page of ['README.md', 'docs/sim.md', 'docs/benchmarks.md', 'docs/results.md']) {
      for (const name of markedBlocks(readPage(page)).keys()) expect(names).toContain(name);
    }
  });

  it('the pages hold what the code prints now (run npm run docs:tables after a change)', () => {
    for (const page of new Set(DOC_TABLES.map((t) => t.page))) {
      const current = readPage(page);
      expect(rewrite(current, DOC_TABLES), `${page} is stale: run npm run docs:tables`).toBe(
        current,
      );
    }
  });

  it('has a committed record for every measurement, naming its commit, command and load', () => {
    for (const m of MEASUREMENTS) {
      const record = readRecord(m.name);
      expect(record, `docs/measured/${m.name}.json`).not.toBeNull();
      expect(record!.commit).toMatch(/^[0-9a-f]{7,}$/);
      expect(record!.commands.length).toBeGreaterThan(0);
      expect(record!.loadBefore).toMatch(/^[\d.]+ [\d.]+ [\d.]+$/);
    }
  });

  it('has the sim-seeds sets the sim.md blocks need, each measured as its folder says', () => {
    for (const name of ['bands', 'optimize']) {
      const dir = join(SIM_SEEDS_DIR, name);
      const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as unknown;
      const manifest = ManifestSchema.parse(read('manifest.json'));
      expect(manifest.commands.length, `${name}/manifest.json`).toBeGreaterThan(0);
      const sets = readdirSync(dir).filter((f) => f.startsWith('set-'));
      expect(sets.length, name).toBeGreaterThanOrEqual(20);
      for (const f of sets) {
        const set = StoredSetSchema.parse(read(f));
        expect(set.measuredWith, `${name}/${f}`).toEqual(manifest.measuredWith);
        expect(set.measuredWith.optimize).toBe(name === 'optimize');
        expect(f).toBe(`set-${set.result.seed}.json`);
        // A set says where it was measured, or its folder says it for the sets copied in.
        const commit = set.provenance?.commit ?? manifest.earlier?.commit;
        expect(commit, `${name}/${f}`).toMatch(/^[0-9a-f]{7,}$/);
      }
    }
  });

  // Needs dist/ (npm run build): the measurement runs bin/acon.js in a temporary folder.
  it('re-measures the cheap commands: they print what their records hold', async () => {
    const cheap = MEASUREMENTS.filter((m) => m.cheap);
    expect(cheap.length).toBeGreaterThan(0);
    for (const m of cheap) {
      const fresh = await measure(m);
      expect(fresh.output, `${m.name} drifted: npm run docs:tables -- --measure ${m.name}`).toEqual(
        readRecord(m.name)!.output,
      );
    }
  }, 120_000);

  it('rewrites an inline block inside its paragraph', () => {
    const table: DocTable = { name: 'y', page: 'y.md', render: () => 'now 3 s', inline: true };
    const page = 'It took <!-- generated: y -->then 9 s<!-- end -->, measured.\n';
    expect(rewrite(page, [table])).toBe(
      'It took <!-- generated: y -->now 3 s<!-- end -->, measured.\n',
    );
  });

  it('quotes a verdict with its continuation lines and nothing after', () => {
    const stdout = 'x\nverdict test: a b\n  c d\nverdict pair: e\n';
    expect(verdictLines(stdout, 'test')).toBe('verdict test: a b\n  c d');
  });

  it('rewrites only between the markers, and catches a drifted table', () => {
    const table: DocTable = { name: 'x', page: 'x.md', render: () => '| a |\n| --- |' };
    const page = 'before\n<!-- generated: x -->\n| old |\n<!-- end -->\nafter\n';
    expect(rewrite(page, [table])).toBe(
      'before\n<!-- generated: x -->\n| a |\n| --- |\n<!-- end -->\nafter\n',
    );
    const fresh = rewrite(page, [table]);
    expect(rewrite(fresh, [table])).toBe(fresh);
  });
});

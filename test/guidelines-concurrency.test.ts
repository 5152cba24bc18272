import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GuidelineStore } from '../src/guidelines/store.js';
import { tempDir } from './helpers/cli.js';

const STORE = resolve(import.meta.dirname, '../src/guidelines/store.ts');

/** One writer process: claims ids and writes versions, as an `acon optimize` stage does. */
function writer(dir: string, name: string, rounds: number): Promise<string> {
  const code = `
    const { GuidelineStore } = await import(${JSON.stringify(STORE)});
    const store = new GuidelineStore({ dir: ${JSON.stringify(dir)} });
    const ids = [];
    for (let r = 0; r < ${rounds}; r++) {
      const [id] = store.reserveIds('obs', 1);
      store.write({ id, kind: 'obs', parent: 'obs-0000', phase: 'ut', run: ${JSON.stringify(name)},
        status: 'candidate', slug: ${JSON.stringify(name)} + '-c' + r, text: 'Keep ids. ' + ${JSON.stringify(name)} + r });
      ids.push(id);
      const own = store.write({ kind: 'obs', parent: 'obs-0000', phase: 'co', run: ${JSON.stringify(name)},
        status: 'candidate', slug: ${JSON.stringify(name)} + '-d' + r, text: 'Drop urls. ' + r });
      ids.push(own.id);
    }
    process.stdout.write(ids.join(','));
  `;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (status) => (status === 0 ? done(out) : fail(new Error(err))));
  });
}

describe('guideline ids across processes (issue #31)', () => {
  it('gives writers in separate processes distinct ids and never overwrites a file', async () => {
    const dir = tempDir('acon-guidelines-race-');
    const names = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
    const outs = await Promise.all(names.map((n) => writer(dir, n, 6)));
    const ids = outs.flatMap((o) => o.split(','));
    expect(ids).toHaveLength(names.length * 12);
    expect(new Set(ids).size).toBe(ids.length);
    const store = new GuidelineStore({ dir });
    const listed = store.list('obs');
    // Every version is intact: its file holds its own id and text (list() parses each one).
    expect(listed.map((g) => g.id).sort()).toEqual(['obs-0000', ...ids].sort());
    for (const g of listed.filter((v) => v.run !== null)) {
      expect(g.text).toMatch(new RegExp(`^(Keep ids\\. ${g.run}|Drop urls\\. )\\d+$`));
    }
    // No claim is left behind once its version exists.
    expect(readdirSync(join(dir, 'obs', '.reserved'))).toEqual([]);
  });
});

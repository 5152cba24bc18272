import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { foreignBenchWarning } from './bench-check.js';
import { GuidelineStore } from './store.js';

describe('guidelines know their benchmark (issue #24)', () => {
  const store = new GuidelineStore({ dir: mkdtempSync(join(tmpdir(), 'acon-g-')) });
  const text = '## Observation guideline\nKEEP: identifiers';

  it('records the benchmark in the front matter and reads it back', () => {
    const v = store.write({
      kind: 'obs',
      parent: 'obs-0000',
      phase: 'ut',
      run: 'run-1',
      bench: 'apptown',
      text,
    });
    expect(readFileSync(v.path, 'utf8')).toMatch(/^bench: apptown$/m);
    expect(new GuidelineStore({ dir: join(v.path, '..', '..') }).get(v.id).bench).toBe('apptown');
  });

  it('warns when a version learned on one benchmark is used on another, in one line', () => {
    const hist = store.write({ kind: 'hist', parent: 'hist-0000', phase: 'ut', run: 'r', text });
    const obs = store.list('obs').find((g) => g.bench === 'apptown')!;
    expect(foreignBenchWarning(store, [obs.id, hist.id], 'apptown')).toBeNull();
    const w = foreignBenchWarning(store, [obs.id, hist.id], 'qa');
    expect(w).toBe(
      `${obs.id} was learned on apptown, not on qa; learn qa's with \`acon optimize --bench qa\` or pick versions with --guidelines`,
    );
    expect(w).not.toContain('\n');
    // Seeds and hand-written versions belong to no benchmark.
    expect(foreignBenchWarning(store, ['obs-0000', hist.id], 'qa')).toBeNull();
  });
});

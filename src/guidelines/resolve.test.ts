import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { resolveGuidelinePair } from './resolve.js';
import { GuidelineStore } from './store.js';

describe('resolveGuidelinePair', () => {
  let dir: string;
  let store: GuidelineStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acon-resolve-'));
    store = new GuidelineStore({ dir });
    store.write({ kind: 'obs', parent: 'obs-0000', phase: 'ut', run: null, text: 'Keep ids.' });
    store.write({ kind: 'hist', parent: 'hist-0000', phase: 'ut', run: null, text: 'Keep state.' });
    store.promote('hist@1');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('uses the active versions by default', async () => {
    const pair = await resolveGuidelinePair(null, store);
    expect([pair.obs.id, pair.hist.id]).toEqual(['obs-0000', 'hist-0001']);
    expect(pair.hist.text).toBe('Keep state.');
  });

  it('takes one ref per kind and fills the other with the active one', async () => {
    const pair = await resolveGuidelinePair('obs@latest', store);
    expect([pair.obs.id, pair.hist.id]).toEqual(['obs-0001', 'hist-0001']);
    const both = await resolveGuidelinePair('obs@0, hist@0', store);
    expect([both.obs.id, both.hist.id]).toEqual(['obs-0000', 'hist-0000']);
    const latest = await resolveGuidelinePair('latest', store);
    expect([latest.obs.id, latest.hist.id]).toEqual(['obs-0001', 'hist-0001']);
  });

  it('rejects two versions of one kind', async () => {
    await expect(resolveGuidelinePair('obs@0,obs@1', store)).rejects.toThrow(InvalidInputError);
  });
});

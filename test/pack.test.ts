import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the published package', () => {
  it('installs from the npm pack tarball, imports and type-checks as a consumer would', () => {
    const script = resolve(import.meta.dirname, '../scripts/pack-check.mjs');
    const out = execFileSync(process.execPath, [script], { encoding: 'utf8' });
    expect(out).toContain('pack-check: ok');
    // npm pack and a cached install take about a minute on a loaded 2-core machine.
  }, 300_000);
});

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLOWEST } from './helpers/slowest-first.js';

describe('the test order (issue #28)', () => {
  it('names only test files that exist, each once', () => {
    const root = resolve(import.meta.dirname, '..');
    expect(SLOWEST.filter((f) => !existsSync(resolve(root, f)))).toEqual([]);
    expect(new Set(SLOWEST).size).toBe(SLOWEST.length);
  });
});

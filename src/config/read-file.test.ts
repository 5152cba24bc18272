import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { thrownOf } from '../../test/helpers/thrown.js';
import { ConfigError } from '../errors.js';
import { loadConfig } from './load.js';
import { readConfigText } from './read-file.js';

const dir = () => mkdtempSync(join(tmpdir(), 'acon-config-'));

const errorOf = (fn: () => unknown) => thrownOf(ConfigError, fn);

describe('a config path that is not a readable file (issue #60)', () => {
  it('names a folder at the default path and says what to do', () => {
    const cwd = dir();
    mkdirSync(join(cwd, 'acon.config.yaml'));
    const err = errorOf(() => loadConfig({ cwd, env: {} }));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(join(cwd, 'acon.config.yaml'));
    expect(err.message).toContain('is a folder, not a config file');
    expect(err.message).not.toContain('EISDIR');
  });

  it('names a symlink loop, given with --config or found at the default path', () => {
    const cwd = dir();
    const file = join(cwd, 'acon.config.yaml');
    symlinkSync(file, file);
    for (const opts of [
      { cwd, env: {} },
      { file, env: {} },
    ]) {
      const err = errorOf(() => loadConfig(opts));
      expect(err.message).toContain(file);
      expect(err.message).toContain('points back to itself');
    }
  });

  it('names a file that cannot be read (the error injected: root reads any file)', () => {
    const file = join(dir(), 'acon.config.yaml');
    symlinkSync('/nonexistent-target', file);
    const denied = Object.assign(new Error(`EACCES: permission denied, open '${file}'`), {
      code: 'EACCES',
    });
    const err = errorOf(() =>
      readConfigText(file, () => {
        throw denied;
      }),
    );
    expect(err.message).toContain(file);
    expect(err.message).toContain('make it readable (chmod u+r) or pass another file with `file`');
    // A dangling link is reported, not skipped as "no config".
    expect(errorOf(() => readConfigText(file)).message).toContain('to a file that does not exist');
  });

  it('reads no file where there is none', () => {
    expect(readConfigText(join(dir(), 'acon.config.yaml'))).toBeNull();
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { thrownOf } from '../../test/helpers/thrown.js';
import { ConfigError } from '../errors.js';
import { configTemplate } from './init.js';
import { loadConfig } from './load.js';
import { ConfigSchema } from './schema.js';

function withFile(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'acon-config-'));
  const file = join(dir, 'acon.config.yaml');
  writeFileSync(file, text);
  return { dir, file };
}

const errorOf = (fn: () => unknown) => thrownOf(ConfigError, fn);

describe('loadConfig', () => {
  it('uses the seed defaults when there is no file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acon-config-'));
    const { config, file } = loadConfig({ cwd: dir, env: {} });
    expect(file).toBeNull();
    expect(config.provider).toBe('sim');
    expect(config.context).toMatchObject({ t_obs: 1024, t_hist: 4096, keep_last: 1 });
    expect(config.context.masking.window).toBe(10);
    expect(config.context.summary).toEqual({ n: 21, m: 10 });
  });

  it('ships an init template whose values are exactly the defaults', () => {
    expect(ConfigSchema.parse(parse(configTemplate()))).toEqual(ConfigSchema.parse({}));
  });

  it('names file and position for malformed YAML, on one line', () => {
    const { file } = withFile('context:\n  t_obs: [1024\n');
    const err = errorOf(() => loadConfig({ file, env: {} }));
    expect(err.file).toBe(file);
    expect(err.field).toMatch(/^line \d+, column \d+$/);
    expect(err.message).toContain('invalid YAML');
    expect(err.message.split('\n')).toHaveLength(1);
  });

  it('names file and field for a wrong type, with the fix', () => {
    const { file } = withFile('context:\n  t_obs: lots\n');
    const err = errorOf(() => loadConfig({ file, env: {} }));
    expect(err.field).toBe('context.t_obs');
    expect(err.message).toBe(
      `${file}: context.t_obs: expected number, got "lots"; set it to a number`,
    );
  });

  it('names file and field for an unknown key', () => {
    const { file } = withFile('context:\n  t_osb: 512\n');
    const err = errorOf(() => loadConfig({ file, env: {} }));
    expect(err.field).toBe('context.t_osb');
    expect(err.message).toContain('unknown setting');
    expect(err.message.split('\n')).toHaveLength(1);
  });

  it('rejects an unknown provider with the allowed values', () => {
    const { file } = withFile('provider: anthropic\n');
    expect(errorOf(() => loadConfig({ file, env: {} })).message).toContain('"sim", "openai"');
  });

  it('fails for an explicit --config path that does not exist', () => {
    expect(
      errorOf(() => loadConfig({ file: '/nonexistent/acon.yaml', env: {} })).message,
    ).toContain('acon init');
  });

  it('applies environment overrides over the file and names the variable in errors', () => {
    const { file } = withFile('provider: sim\ncontext:\n  t_obs: 2048\n');
    const { config } = loadConfig({
      file,
      env: {
        OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1',
        ACON_PROVIDER: 'openai',
        ACON_MODEL: 'qwen3-14b',
        ACON_CONTEXT__T_OBS: '512',
        ACON_DB: '/tmp/x.db',
      },
    });
    expect(config.provider).toBe('openai');
    expect(config.endpoints.default?.base_url).toBe('http://127.0.0.1:9999/v1');
    expect(config.roles.analyzer.model).toBe('qwen3-14b');
    expect(config.context.t_obs).toBe(512);
    expect(config.run.db).toBe('/tmp/x.db');
    const err = errorOf(() => loadConfig({ file, env: { ACON_CONTEXT__T_OBS: 'big' } }));
    expect(err.file).toBe('environment ACON_CONTEXT__T_OBS');
    expect(err.field).toBe('context.t_obs');
  });

  it('takes ACON_ variables as config only under a known setting', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acon-config-'));
    const env = { ACON_VERBOSE: '1', ACON_API_KEY: 'x', ACON_TEST_KEY: 'sk-y', ACON_SEED: '7' };
    const { config } = loadConfig({ cwd: dir, env });
    expect(config.seed).toBe(7);
    expect(JSON.stringify(config)).not.toContain('sk-y');
    const err = errorOf(() => loadConfig({ cwd: dir, env: { ACON_CONTEXT__T_OSB: '1' } }));
    expect(err.message).toMatch(
      /^environment ACON_CONTEXT__T_OSB: context\.t_osb: unknown setting; remove it or check its spelling \(valid here: t_obs, t_hist, keep_last, [a-z_, ]+\); see `acon init` for every setting$/,
    );
  });

  it('says what a URL setting needs when it is not one', () => {
    const { file } = withFile('endpoints:\n  default:\n    base_url: not-a-url\n');
    const err = errorOf(() => loadConfig({ file, env: {} }));
    expect(err.message).toBe(
      `${file}: endpoints.default.base_url: expected a full URL like http://127.0.0.1:8000/v1, got "not-a-url"; write it with http:// or https:// and the host`,
    );
  });

  it("names a misspelt AppWorld /initialize option with AppWorld's valid ones", () => {
    const { file } = withFile('appworld:\n  initialize:\n    timout_seconds: 60\n');
    const err = errorOf(() => loadConfig({ file, env: {} }));
    expect(err.field).toBe('appworld.initialize.timout_seconds');
    expect(err.message).toMatch(
      /unknown setting; .*valid here: remote_apis_url, .*timeout_seconds, /,
    );
    expect(err.message).not.toMatch(/valid here: .*experiment_name/);
    const typed = errorOf(() =>
      loadConfig({
        file: withFile('appworld:\n  initialize:\n    timeout_seconds: soon\n').file,
        env: {},
      }),
    );
    expect(typed.field).toBe('appworld.initialize.timeout_seconds');
    const ours = errorOf(() =>
      loadConfig({
        file: withFile('appworld:\n  initialize:\n    experiment_name: x\n').file,
        env: {},
      }),
    );
    expect(ours.message).toContain('acon sets experiment_name itself');
    const { config } = loadConfig({
      file: withFile('appworld:\n  initialize:\n    timeout_seconds: null\n').file,
      env: {},
    });
    expect(config.appworld.initialize).toEqual({ timeout_seconds: null });
  });

  it('does not let an API key in the environment switch the provider', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acon-config-'));
    const { config } = loadConfig({ cwd: dir, env: { OPENAI_API_KEY: 'sk-x' } });
    expect(config.provider).toBe('sim');
  });
});

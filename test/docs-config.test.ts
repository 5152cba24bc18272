import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  configDefaults,
  configSections,
  formatValue,
  renderConfigDocs,
} from '../scripts/docs/config-docs.js';
import { configTemplate } from '../src/config/init.js';
import { ACON_BIN, cleanEnv, tempDir } from './helpers/cli.js';
import { REPO } from './helpers/doc-commands.js';

/** Leaf values by path, as JSON arrays of keys (keys such as `gpt-4.1` contain dots). */
function flatten(value: unknown, path: string[] = [], out = new Map<string, unknown>()) {
  const isMap = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (isMap && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) flatten(v, [...path, k], out);
  } else out.set(JSON.stringify(path), value);
  return out;
}

/** The rows of docs/configuration.md: key → default cell. */
function docRows(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of markdown.split('\n')) {
    const m = /^\| `([^`]+)` \| .*? \| (.*?) \| .* \|$/.exec(line);
    if (m) rows.set(m[1]!, m[2]!);
  }
  return rows;
}

const PAGE = join(REPO, 'docs/configuration.md');

describe('docs/configuration.md', () => {
  it('is what npm run docs:config generates from the schema (run it after a config change)', () => {
    const stale = 'docs/configuration.md is stale: run npm run docs:config';
    expect(readFileSync(PAGE, 'utf8'), stale).toBe(renderConfigDocs());
  });

  it('describes every key, from the schema or the init template', () => {
    const fix =
      'describe these keys in src/config/acon.config.template.yaml (a # comment) or with .describe()';
    expect(configSections().missing, fix).toEqual([]);
  });

  it('reports a key the template and the schema leave undescribed', () => {
    const bare = configTemplate().replace(/ # rollouts in flight at once/, '');
    expect(configSections(bare).missing).toEqual(['run.concurrency']);
  });

  it('lists every key of the acon init template with the same default', () => {
    const dir = tempDir('acon-init-docs-');
    const r = spawnSync('node', [ACON_BIN, 'init', '--out', 'acon.config.yaml'], {
      cwd: dir,
      env: cleanEnv(),
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const written = parse(readFileSync(join(dir, 'acon.config.yaml'), 'utf8')) as unknown;
    const rows = docRows(readFileSync(PAGE, 'utf8'));
    const placeholder: Record<string, string> = {
      roles: '<role>',
      endpoints: '<name>',
      prices: '<model>',
    };
    for (const [path, value] of flatten(written)) {
      const segments = JSON.parse(path) as string[];
      const [head, name, ...rest] = segments;
      const key = segments.join('.');
      const docKey =
        placeholder[head!] && name ? [head, placeholder[head!], ...rest].join('.') : key;
      expect(rows.has(docKey), `${key} (as ${docKey}) is missing from configuration.md`).toBe(true);
      // Settings under names the user chooses show their own default; the record row holds the
      // shipped entries. Plain keys show exactly the template's value.
      if (docKey === key) expect(rows.get(key), key).toBe(formatValue(value));
    }
  });
});

describe('acon init template', () => {
  it('holds every key of the schema with its default, and nothing else', () => {
    expect(flatten(parse(configTemplate()))).toEqual(flatten(configDefaults()));
  });
});

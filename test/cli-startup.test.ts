import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

/**
 * Every acon command pays its start-up before it does anything, and the CLI tests spawn
 * `bin/acon.js` hundreds of times (issue #28): the program loads only commander, picocolors and
 * the command definitions; each action imports what it needs. A loader hook lists the modules.
 */
async function loadedModules(args: string[]): Promise<{ packages: string[]; ours: string[] }> {
  const cwd = tempDir('acon-startup-');
  const list = join(cwd, 'modules.txt');
  writeFileSync(list, '');
  writeFileSync(
    join(cwd, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(list)}, url + '\\n');
  return next(url, context);
}
`,
  );
  writeFileSync(
    join(cwd, 'register.mjs'),
    `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(join(cwd, 'hooks.mjs')).href)});
`,
  );
  const r = await runAcon(args, {
    cwd,
    env: { NODE_OPTIONS: `--import=${pathToFileURL(join(cwd, 'register.mjs')).href}` },
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const urls = readFileSync(list, 'utf8').split('\n').filter(Boolean);
  const packages = new Set<string>();
  const ours: string[] = [];
  for (const url of urls) {
    const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
    if (pkg) packages.add(pkg);
    else if (url.includes('/dist/')) ours.push(url.slice(url.indexOf('/dist/') + 1));
  }
  return { packages: [...packages].sort(), ours };
}

describe('acon start-up', () => {
  it.each([[['--version']], [['--help']], [['run', '--help']]])(
    'loads no schema library, store or config loader for %j',
    async (args) => {
      const { packages, ours } = await loadedModules(args);
      expect(packages).toEqual(['commander', 'picocolors']);
      expect(
        ours.filter((f) => /^dist\/(store|config\/load|bench\/apptown|sim)\b/.test(f)),
      ).toEqual([]);
    },
  );
});
